// A thread's messages in order, one page after the cursor (seq).
MATCH (m:Message)
WHERE m.userId = $userId AND m.threadId = $threadId AND m.seq > $afterSeq
RETURN m {.id, .role, .content, .seq, createdAt: m.createdAt.epochMillis} AS message
ORDER BY m.seq
LIMIT $limit
