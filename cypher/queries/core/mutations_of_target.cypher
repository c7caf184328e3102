// The history of one thing of a user's (a note, an edge, a thread, a session, the profile),
// newest first, through the (userId, targetId) index, with the same filters and cursor as
// the whole journal (and the same entity scope); the write gate and undo read it to see what changed a thing since.
MATCH (m:Mutation {userId: $userId, targetId: $targetId})
WHERE ($beforeSeq IS NULL OR m.seq < $beforeSeq
       OR (m.seq = $beforeSeq AND coalesce(m.part, 0) < $beforePart))
  AND ($afterSeq IS NULL OR m.seq > $afterSeq)
  AND ($since IS NULL OR m.at >= datetime($since))
  AND ($role IS NULL OR m.role = $role)
  AND ($sessionId IS NULL OR m.sessionId = $sessionId)
  AND ($scope IS NULL OR (EXISTS { (m)-[:CHANGED]->(:Knowledge) } AND NOT EXISTS {
        MATCH (m)-[:CHANGED]->(k:Knowledge)
        WHERE NOT (k.id IN $scope.ids OR any(t IN coalesce(k.tags, []) WHERE t IN $scope.tags)) }))
WITH m
ORDER BY m.seq DESC, m.part DESC
LIMIT $limit
RETURN m {
  .id, .seq, .part, .role, .agentId, .sessionId, .op, .targetType, .targetId, .before, .after,
  .undoes, .proposalId, .scrubbed, at: m.at.epochMillis,
  undoneBy: [(u:Mutation)-[:UNDOES]->(m) | u.id][0]
} AS mutation
