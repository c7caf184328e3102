// A page of a user's journal, newest first (by the write gate's sequence, read in the order
// of the (userId, seq) index), optionally since a time, of one target, by one actor role,
// or in one session; $beforeSeq continues after the last page.
MATCH (m:Mutation)
USING INDEX m:Mutation(userId, seq)
WHERE m.userId = $userId AND m.seq IS NOT NULL
  AND ($beforeSeq IS NULL OR m.seq < $beforeSeq)
  AND ($since IS NULL OR m.at >= datetime($since))
  AND ($targetId IS NULL OR m.targetId = $targetId)
  AND ($role IS NULL OR m.role = $role)
  AND ($sessionId IS NULL OR m.sessionId = $sessionId)
WITH m
ORDER BY m.userId DESC, m.seq DESC
LIMIT $limit
RETURN m {
  .id, .seq, .role, .agentId, .sessionId, .op, .targetType, .targetId, .before, .after,
  at: m.at.epochMillis
} AS mutation
