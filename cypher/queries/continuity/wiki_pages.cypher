// A user's saved session pages: by slug, a session's, or a page of the list (one agent's, if given),
// newest save first, keyset-paged on (savedAt, slug).
MATCH (w:WikiPage)
WHERE w.userId = $userId AND w.savedAt IS NOT NULL
  AND ($slugs IS NULL OR w.slug IN $slugs)
  AND ($agentId IS NULL OR w.agentId = $agentId)
  AND ($sessionId IS NULL OR w.sessionId = $sessionId)
  AND ($afterTime IS NULL
       OR w.savedAt < datetime($afterTime)
       OR (w.savedAt = datetime($afterTime) AND w.slug < $afterSlug))
WITH w
ORDER BY w.savedAt DESC, w.slug DESC
LIMIT $limit
RETURN w {
  .slug, .sessionId, .agentId, .title, .summary, .decisions, .learnings, .openQuestions,
  .savedCount, .savedWith, .savedByRole,
  savedAt: w.savedAt.epochMillis, createdAt: w.createdAt.epochMillis,
  insights: [(w)-[:HAS_INSIGHT]->(i:Insight) | i {
    .id, .type, .content, .confidence, .position, extractedAt: i.extractedAt.epochMillis
  }]
} AS page, toString(w.savedAt) AS position
