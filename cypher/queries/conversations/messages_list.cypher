// A thread's messages in order, one page after the cursor (seq). One list (db.listed).
MATCH (m:Message)
WHERE m.userId = $userId AND m.threadId = $threadId AND m.seq > $afterSeq
WITH m ORDER BY m.seq
LIMIT $limit
RETURN collect({message: m {.id, .role, .content, .seq, .data, createdAt: m.createdAt.epochMillis}}) AS rows
