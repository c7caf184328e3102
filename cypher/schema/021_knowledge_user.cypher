// A user's notes, found without scanning everyone's (every query is scoped by userId).
CREATE INDEX knowledge_user IF NOT EXISTS
FOR (n:Knowledge) ON (n.userId)
