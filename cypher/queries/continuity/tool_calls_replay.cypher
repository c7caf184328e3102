// A session's tool calls in the order they were recorded, after position $after.
MATCH (c:ToolCall)
WHERE c.userId = $userId AND c.sessionId = $sessionId AND c.position > $after
WITH c
ORDER BY c.position
LIMIT $limit
RETURN c {
  .position, .tool, .arguments, .resultSummary, .durationMs, .role, .agentId,
  at: c.at.epochMillis, recordedAt: c.recordedAt.epochMillis
} AS call
