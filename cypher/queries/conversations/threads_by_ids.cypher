// Threads of one user by id, as the API shows them, with their related threads.
MATCH (t:Thread)
WHERE t.userId = $userId AND t.id IN $ids
RETURN t {
  .id, .contextType, .topic, .messageCount,
  createdAt: t.createdAt.epochMillis, updatedAt: t.updatedAt.epochMillis,
  relatedThreads: [(t)-[:RELATED_THREAD]-(o:Thread) WHERE o.userId = $userId | o.id]
} AS thread
