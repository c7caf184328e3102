// The topics of a user's most recently active threads.
MATCH (t:Thread)
WHERE t.userId = $userId
RETURN t.id AS threadId, t.topic AS topic, t.contextType AS contextType, t.updatedAt.epochMillis AS updatedAt
ORDER BY t.updatedAt DESC, t.id DESC
LIMIT $limit
