// A user's sessions, newest first (listing; an agent's are filtered from them).
CREATE INDEX session_user_started IF NOT EXISTS
FOR (s:Session) ON (s.userId, s.startedAt)
