// Every message of a thread, in order (input of insight extraction). One list (db.listed).
MATCH (m:Message)
WHERE m.userId = $userId AND m.threadId = $threadId
WITH m ORDER BY m.seq
RETURN collect({id: m.id, role: m.role, content: m.content}) AS rows
