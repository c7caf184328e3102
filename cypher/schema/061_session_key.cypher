// A session id is unique within its user's sessions.
CREATE CONSTRAINT session_key IF NOT EXISTS
FOR (s:Session) REQUIRE (s.userId, s.id) IS UNIQUE
