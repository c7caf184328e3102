// Pending actions: left open at a session's end, surfaced until resolved.
CREATE CONSTRAINT pending_action_key IF NOT EXISTS
FOR (p:PendingAction) REQUIRE (p.userId, p.id) IS UNIQUE
