// A page of a user's journal (for a key with an entity scope, only the mutations of notes
// and edges inside it), newest first (by the write gate's sequence and the part
// within a write, read in the order of the (userId, seq) index), optionally since a time,
// by one actor role, or in one session; $beforeSeq and $beforePart continue after the
// last page. One thing's history is mutations_of_target. One list (db.listed).
MATCH (m:Mutation)
USING INDEX m:Mutation(userId, seq)
WHERE m.userId = $userId AND m.seq IS NOT NULL
  AND ($beforeSeq IS NULL OR m.seq < $beforeSeq
       OR (m.seq = $beforeSeq AND coalesce(m.part, 0) < $beforePart))
  AND ($since IS NULL OR m.at >= datetime($since))
  AND ($role IS NULL OR m.role = $role)
  AND ($sessionId IS NULL OR m.sessionId = $sessionId)
  AND ($scope IS NULL OR (EXISTS { (m)-[:CHANGED]->(:Knowledge) } AND NOT EXISTS {
        MATCH (m)-[:CHANGED]->(k:Knowledge)
        WHERE NOT (k.id IN $scope.ids OR any(t IN coalesce(k.tags, []) WHERE t IN $scope.tags)) }))
WITH m
ORDER BY m.userId DESC, m.seq DESC, m.part DESC
LIMIT $limit
RETURN collect({mutation: m {
  .id, .seq, .part, .role, .agentId, .sessionId, .op, .targetType, .targetId, .before, .after,
  .undoes, .proposalId, .scrubbed, at: m.at.epochMillis,
  undoneBy: [(u:Mutation)-[:UNDOES]->(m) | u.id][0]
}}) AS rows
