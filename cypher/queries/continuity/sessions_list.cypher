// A user's sessions, newest first, optionally one agent's; keyset pages on (startedAt, id).
MATCH (s:Session)
WHERE s.userId = $userId AND s.startedAt IS NOT NULL
  AND ($agentId IS NULL OR s.agentId = $agentId)
  AND ($afterTime IS NULL
       OR s.startedAt < datetime($afterTime)
       OR (s.startedAt = datetime($afterTime) AND s.id < $afterId))
WITH s
ORDER BY s.startedAt DESC, s.id DESC
LIMIT $limit
RETURN s.id AS id, toString(s.startedAt) AS position
