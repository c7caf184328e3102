// Messages of one user's thread by id, in thread order. One list (db.listed).
MATCH (m:Message)
WHERE m.userId = $userId AND m.threadId = $threadId AND m.id IN $ids
WITH m ORDER BY m.seq
RETURN collect({message: m {.id, .role, .content, .seq, .data, createdAt: m.createdAt.epochMillis}}) AS rows
