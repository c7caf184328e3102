// Forget a batch of insights ($ids): their journal entries scrubbed, corrections and
// proposals about them removed, the insights gone with their edges (provenance, the
// profile preferences promoted from them keep their own text), vectors and fulltext entries.
CALL () {
  MATCH (m:Mutation)
  WHERE m.userId = $userId AND m.targetId IN $ids AND m.scrubbed IS NULL
  SET m.before = null, m.after = null, m.scrubbed = true, m.vector = null, m.vectorModel = null
  RETURN count(m) AS scrubbed
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
  MATCH (i:Insight)
  WHERE i.userId = $userId AND i.id IN $ids
  DETACH DELETE i
  RETURN count(*) AS deleted
}
RETURN deleted, scrubbed
