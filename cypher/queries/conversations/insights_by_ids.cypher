// Insights of one user by id, as listings show them.
MATCH (i:Insight)
WHERE i.userId = $userId AND i.id IN $ids
RETURN i {
  .id, .threadId, .sessionId, .pageSlug, .type, .content, .confidence, .extractor,
  extractedAt: i.extractedAt.epochMillis,
  messageId: [(i)-[:EXTRACTED_FROM]->(m:Message) | m.id][0],
  knowledgeIds: [(k:Knowledge)-[:DERIVED_FROM]->(i) | k.id]
} AS insight
