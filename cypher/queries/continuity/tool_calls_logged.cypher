// Before an append that gives positions: how many calls the session's log holds, and the
// tools at the given positions (a repeat of one must be the same call). Under the user's
// write gate, so the answer holds for the append.
MATCH (s:Session {userId: $userId, id: $sessionId})
CALL (s) {
  UNWIND $positions AS position
  MATCH (c:ToolCall {userId: $userId, sessionId: s.id, position: position})
  RETURN collect({position: c.position, tool: c.tool}) AS taken
}
RETURN coalesce(s.toolCalls, 0) AS logged, taken
