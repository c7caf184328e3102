// A user's saved session pages closest to a task, by exact cosine over their embeddings
// (a user has hundreds of pages, not millions: no index needed, and none shared by users).
MATCH (w:WikiPage)
WHERE w.userId = $userId AND w.embedding IS NOT NULL
  AND ($agentId IS NULL OR w.agentId = $agentId)
WITH w, vector.similarity.cosine(w.embedding, $vector) AS score
WHERE score >= $minScore
ORDER BY score DESC, w.slug
LIMIT $limit
RETURN w {
  .slug, .sessionId, .agentId, .title, .summary, .decisions, .learnings, .openQuestions,
  savedAt: w.savedAt.epochMillis, score: score
} AS page
