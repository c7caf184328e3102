// Insights of one user by id.
MATCH (i:Insight)
WHERE i.userId = $userId AND i.id IN $ids
RETURN i {
  .id, .threadId, .sessionId, .pageSlug, .type, .content, .confidence, extractedAt: i.extractedAt.epochMillis
} AS insight
