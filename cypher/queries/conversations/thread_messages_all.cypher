// Every message of a thread, in order (input of insight extraction).
MATCH (m:Message)
WHERE m.userId = $userId AND m.threadId = $threadId
RETURN m.id AS id, m.role AS role, m.content AS content
ORDER BY m.seq
