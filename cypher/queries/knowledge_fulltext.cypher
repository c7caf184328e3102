// Keyword search narrowed to one user inside Lucene (tenantKey), then checked exactly.
CALL db.index.fulltext.queryNodes('knowledge_fulltext', $lucene, {limit: $candidates}) YIELD node AS n, score
WHERE n.userId = $userId AND n.status IN $statuses
  AND ($types IS NULL OR n.type IN $types)
  AND ($sources IS NULL OR n.source IN $sources)
  AND ($minConfidence IS NULL OR n.confidence >= $minConfidence)
  AND ($tags IS NULL OR any(t IN n.tags WHERE t IN $tags))
  AND ($createdAfter IS NULL OR n.createdAt >= datetime($createdAfter))
  AND ($createdBefore IS NULL OR n.createdAt < datetime($createdBefore))
RETURN n.id AS id, score
ORDER BY score DESC, n.id
LIMIT $topK
