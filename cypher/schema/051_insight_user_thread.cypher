// A user's insights by thread.
CREATE INDEX insight_user_thread IF NOT EXISTS
FOR (i:Insight) ON (i.userId, i.threadId)
