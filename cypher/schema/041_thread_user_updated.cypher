// A user's threads, most recently active first.
CREATE INDEX thread_user_updated IF NOT EXISTS
FOR (t:Thread) ON (t.userId, t.updatedAt)
