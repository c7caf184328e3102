// Exact top-k by cosine over one user's notes (filters applied before ranking).
MATCH (n:Knowledge)
WHERE n.userId = $userId AND n.status IN $statuses
  AND ($types IS NULL OR n.type IN $types)
  AND ($sources IS NULL OR n.source IN $sources)
  AND ($minConfidence IS NULL OR n.confidence >= $minConfidence)
  AND ($tags IS NULL OR any(t IN n.tags WHERE t IN $tags))
  AND ($createdAfter IS NULL OR n.createdAt >= datetime($createdAfter))
  AND ($createdBefore IS NULL OR n.createdAt < datetime($createdBefore))
WITH n, vector.similarity.cosine(n.embedding, $vector) AS score
ORDER BY score DESC, n.id
LIMIT $topK
RETURN n.id AS id, score
