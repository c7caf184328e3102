// A user's notes changed since a time (catch_up's knowledge section), read as an index range.
CREATE INDEX knowledge_user_updated IF NOT EXISTS
FOR (n:Knowledge) ON (n.userId, n.updatedAt)
