// Remove what a forget found besides the things themselves (forget_match_traces): scrub the
// journal entries $mutationIds (they keep their place and sequence, lose their values and
// any vector, and the merge records a delete among them held), and delete the corrections
// $correctionIds (with their acknowledgements) and
// proposals $proposalIds. Safe to run again.
CALL () {
  MATCH (m:Mutation)
  WHERE m.userId = $userId AND m.id IN $mutationIds AND m.scrubbed IS NULL
  SET m.before = null, m.after = null, m.scrubbed = true, m.vector = null, m.vectorModel = null
  RETURN count(m) AS scrubbed
}
CALL () {
  // The merge records a scrubbed delete held for its undo go with its values.
  MATCH (h:MergedNote {userId: $userId})
  WHERE h.heldBy IN $mutationIds
  DETACH DELETE h
}
CALL () {
  MATCH (c:Correction)
  WHERE c.userId = $userId AND c.id IN $correctionIds
  OPTIONAL MATCH (a:CorrectionAck)-[:ACKNOWLEDGES]->(c)
  WITH c, collect(a) AS acks
  FOREACH (a IN acks | DETACH DELETE a)
  DETACH DELETE c
  RETURN count(*) AS corrections
}
CALL () {
  MATCH (p:Proposal)
  WHERE p.userId = $userId AND p.seq IS NOT NULL AND p.id IN $proposalIds
  DETACH DELETE p
  RETURN count(*) AS proposals
}
RETURN scrubbed, corrections, proposals
