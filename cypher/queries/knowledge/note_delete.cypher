// Delete a note with its edges, keeping the user's note count; notes it alone superseded
// become active again. Its merge records stay, detached and held for an undo ($heldBy: the
// write's key for them until its mutation claims them, queries/knowledge/note_held_claim):
// the journal holds their count, not their text.
MATCH (n:Knowledge {userId: $userId, id: $id})
OPTIONAL MATCH (n)-[:SUPERSEDES]->(old:Knowledge)
WITH n, collect(DISTINCT old) AS olds
CALL (n) {
  MATCH (n)-[:MERGED_FROM]->(m:MergedNote)
  SET m.heldBy = $heldBy, m.heldNote = n.id
  RETURN count(m) AS held
}
DETACH DELETE n
WITH olds, held
MATCH (t:Tenant {userId: $userId})
SET t.notes = t.notes - 1
WITH olds, held
CALL (olds) {
  UNWIND olds AS old
  WITH old
  WHERE old.status = 'superseded' AND NOT EXISTS { (:Knowledge)-[:SUPERSEDES]->(old) }
  SET old.status = 'active', old.updatedAt = datetime()
  RETURN collect(old.id) AS restored
}
RETURN true AS deleted, restored, held
