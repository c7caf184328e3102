// A user's corrections, newest first (of notes inside the key's entity scope, if any); with
// $windowSeconds, only the active ones of the last $windowSeconds that are unacknowledged: by
// the session $unacknowledgedBy when one is named, else by any session of the agent $agentId
// (any session of the user when $agentId is null: a person's key). One list (db.listed).
MATCH (c:Correction)
USING INDEX c:Correction(userId, seq)
WHERE c.userId = $userId AND c.seq IS NOT NULL
  AND ($beforeSeq IS NULL OR c.seq < $beforeSeq)
  AND ($targetId IS NULL OR c.targetId = $targetId)
  AND ($scope IS NULL OR c.targetId IN $scope.ids OR EXISTS {
        MATCH (k:Knowledge {userId: $userId, id: c.targetId})
        WHERE any(t IN coalesce(k.tags, []) WHERE t IN $scope.tags) })
  AND ($windowSeconds IS NULL OR (
        c.status = 'active'
        AND c.at >= datetime() - duration({seconds: $windowSeconds})
        AND CASE
          WHEN $unacknowledgedBy IS NOT NULL
            THEN NOT EXISTS { (:CorrectionAck {sessionId: $unacknowledgedBy})-[:ACKNOWLEDGES]->(c) }
          WHEN $agentId IS NULL THEN NOT EXISTS { (:CorrectionAck)-[:ACKNOWLEDGES]->(c) }
          ELSE NOT EXISTS {
            MATCH (a:CorrectionAck)-[:ACKNOWLEDGES]->(c)
            WHERE EXISTS { MATCH (:Session {userId: $userId, id: a.sessionId, agentId: $agentId}) } }
        END))
WITH c
ORDER BY c.userId DESC, c.seq DESC
LIMIT $limit
RETURN collect({seq: c.seq, correction: c {
  .id, .kind, .status, .targetType, .targetId, .fields, .mutationId, .before, .after, .reason,
  at: c.at.epochMillis,
  acks: [(a:CorrectionAck)-[:ACKNOWLEDGES]->(c) | a {.sessionId, .actionTaken, at: a.at.epochMillis}]
}}) AS rows
