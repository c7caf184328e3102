// Forget a batch of notes ($ids): their journal entries (by target id, and every entry
// linked to them, an edge's included) keep their place but lose their values (scrubbed),
// corrections and proposals about them go, then their merge records, and the notes with
// their edges (and so their vectors and fulltext entries). The user's note count follows;
// a notice a forgotten decision left in a thread loses its text; a note only a forgotten
// note superseded, and not forgotten itself ($forgetting), becomes
// active again, as after a delete. Safe to run again: a note already gone is skipped.
CALL () {
  MATCH (m:Mutation)
  WHERE m.userId = $userId AND m.targetId IN $ids AND m.scrubbed IS NULL
  RETURN m
  UNION
  MATCH (n:Knowledge)<-[:CHANGED]-(m:Mutation)
  WHERE n.userId = $userId AND n.id IN $ids AND m.scrubbed IS NULL
  RETURN m
}
SET m.before = null, m.after = null, m.scrubbed = true, m.vector = null, m.vectorModel = null
WITH count(m) AS scrubbed
CALL () {
  // The notices a forgotten decision left in conversations name it: their text goes (the
  // message keeps its place in its thread), and so do the journal's values of it.
  MATCH (d:Knowledge)<-[:ANNOUNCES]-(msg:Message)
  WHERE d.userId = $userId AND d.id IN $ids
  SET msg.content = $noticeGone
  WITH DISTINCT msg
  MATCH (m:Mutation {userId: $userId, targetId: msg.id})
  WHERE m.scrubbed IS NULL
  SET m.before = null, m.after = null, m.scrubbed = true
}
CALL () {
  MATCH (c:Correction)
  WHERE c.userId = $userId AND c.targetId IN $ids
  OPTIONAL MATCH (a:CorrectionAck)-[:ACKNOWLEDGES]->(c)
  WITH c, collect(a) AS acks
  FOREACH (a IN acks | DETACH DELETE a)
  DETACH DELETE c
}
CALL () {
  MATCH (p:Proposal)
  WHERE p.userId = $userId AND p.seq IS NOT NULL AND p.targetId IN $ids
  DETACH DELETE p
}
CALL () {
  MATCH (n:Knowledge)-[:MERGED_FROM]->(m:MergedNote)
  WHERE n.userId = $userId AND n.id IN $ids
  DETACH DELETE m
}
CALL () {
  // and those an earlier delete of them held for its undo (its entry is scrubbed above)
  MATCH (m:MergedNote {userId: $userId})
  WHERE m.heldNote IN $ids
  DETACH DELETE m
}
OPTIONAL MATCH (n:Knowledge)
WHERE n.userId = $userId AND n.id IN $ids
OPTIONAL MATCH (n)-[:SUPERSEDES]->(old:Knowledge)
// The superseded notes by id, not as nodes: in a chain one of them goes in this batch too.
WITH scrubbed, collect(DISTINCT n) AS gone, collect(DISTINCT old.id) AS olds
CALL (gone) {
  UNWIND gone AS n
  DETACH DELETE n
}
WITH scrubbed, size(gone) AS deleted, olds
MATCH (t:Tenant {userId: $userId})
SET t.notes = t.notes - deleted
WITH scrubbed, deleted, olds
CALL (olds) {
  UNWIND olds AS oldId
  MATCH (old:Knowledge {userId: $userId, id: oldId})
  WHERE NOT old.id IN $forgetting AND old.status = 'superseded'
    AND NOT EXISTS { (:Knowledge)-[:SUPERSEDES]->(old) }
  SET old.status = 'active', old.updatedAt = datetime()
  RETURN collect(old.id) AS restored
}
RETURN deleted, scrubbed, restored
