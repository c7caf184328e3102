// One tool call per (user, session, position): the order a session's calls are replayed in.
CREATE CONSTRAINT tool_call_key IF NOT EXISTS
FOR (c:ToolCall) REQUIRE (c.userId, c.sessionId, c.position) IS UNIQUE
