// An agent's sessions with a user, newest first, read in index order: a start finds the
// agent's newest session, and the context bridge its last N ended ones, without reading
// (or sorting) the whole history.
CREATE INDEX session_user_agent_started IF NOT EXISTS
FOR (s:Session) ON (s.userId, s.agentId, s.startedAt)
