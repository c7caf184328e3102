// A user's insights, newest first, optionally of one thread and type. One list (db.listed).
MATCH (i:Insight)
WHERE i.userId = $userId
  AND ($threadId IS NULL OR i.threadId = $threadId)
  AND ($type IS NULL OR i.type = $type)
  AND ($afterId IS NULL OR i.id < $afterId)
WITH i ORDER BY i.id DESC
LIMIT $limit
RETURN collect({insight: i {
  .id, .threadId, .sessionId, .pageSlug, .type, .content, .confidence, .extractor,
  extractedAt: i.extractedAt.epochMillis,
  messageId: [(i)-[:EXTRACTED_FROM]->(m:Message) | m.id][0],
  knowledgeIds: [(k:Knowledge)-[:DERIVED_FROM]->(i) | k.id]
}}) AS rows
