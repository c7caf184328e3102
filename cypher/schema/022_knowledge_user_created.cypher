// Listing a user's notes newest first, page by page.
CREATE INDEX knowledge_user_created IF NOT EXISTS
FOR (n:Knowledge) ON (n.userId, n.createdAt)
