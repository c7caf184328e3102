// Top-k from the shared vector index, oversampled ($candidates) and then narrowed to one
// user and the filters, re-ranked by exact cosine; `matched` tells if oversampling sufficed.
CALL db.index.vector.queryNodes('knowledge_embedding', $candidates, $vector) YIELD node AS n
WHERE n.userId = $userId AND n.status IN $statuses
  AND ($types IS NULL OR n.type IN $types)
  AND ($sources IS NULL OR n.source IN $sources)
  AND ($minConfidence IS NULL OR n.confidence >= $minConfidence)
  AND ($tags IS NULL OR any(t IN n.tags WHERE t IN $tags))
  AND ($createdAfter IS NULL OR n.createdAt >= datetime($createdAfter))
  AND ($createdBefore IS NULL OR n.createdAt < datetime($createdBefore))
WITH n, vector.similarity.cosine(n.embedding, $vector) AS score
ORDER BY score DESC, n.id
WITH collect({id: n.id, score: score}) AS ranked
RETURN size(ranked) AS matched, ranked[0..$topK] AS hits
