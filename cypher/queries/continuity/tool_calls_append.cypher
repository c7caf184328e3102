// Append tool calls to a session's log, numbered after the ones it has (the session keeps
// the count; the write gate orders appends of one user).
MATCH (s:Session {userId: $userId, id: $sessionId})
WITH s, coalesce(s.toolCalls, 0) AS had
UNWIND range(0, size($rows) - 1) AS i
WITH s, had, i, $rows[i] AS row
CREATE (c:ToolCall {
  userId: $userId, sessionId: s.id, position: had + i + 1, tool: row.tool,
  arguments: row.arguments, resultSummary: row.resultSummary, durationMs: row.durationMs,
  at: coalesce(datetime(row.at), datetime()), recordedAt: datetime(), role: $role, agentId: $agentId
})-[:IN_SESSION]->(s)
WITH s, had, count(c) AS added
SET s.toolCalls = had + added
RETURN had + 1 AS first, had + added AS last
