// Messages of one user's thread by id, in thread order.
MATCH (m:Message)
WHERE m.userId = $userId AND m.threadId = $threadId AND m.id IN $ids
RETURN m {.id, .role, .content, .seq, createdAt: m.createdAt.epochMillis} AS message
ORDER BY m.seq
