// Search ranking, exact plan: cosine over the user's own notes (filters first), plus the
// fulltext ranking; the caller fuses them. Used for users with few notes or a tiny share.
CALL () {
  WITH $vector AS vector WHERE vector IS NOT NULL
  MATCH (n:Knowledge)
  WHERE n.userId = $userId AND n.status IN $statuses
    AND ($types IS NULL OR n.type IN $types)
    AND ($sources IS NULL OR n.source IN $sources)
    AND ($minConfidence IS NULL OR n.confidence >= $minConfidence)
    AND ($tags IS NULL OR any(t IN n.tags WHERE t IN $tags))
    AND ($createdAfter IS NULL OR n.createdAt >= datetime($createdAfter))
    AND ($createdBefore IS NULL OR n.createdAt < datetime($createdBefore))
  WITH n, vector.similarity.cosine(n.embedding, vector) AS score
  ORDER BY score DESC, n.id
  LIMIT $pool
  RETURN collect({id: n.id, score: score}) AS vectorHits
}
CALL () {
  // Keyword half: narrowed to the user inside Lucene (tenantKey), then checked exactly.
  WITH $lucene AS lucene WHERE lucene IS NOT NULL
  CALL db.index.fulltext.queryNodes('knowledge_fulltext', lucene, {limit: $textCandidates}) YIELD node AS n, score
  WHERE n.userId = $userId AND n.status IN $statuses
    AND ($types IS NULL OR n.type IN $types)
    AND ($sources IS NULL OR n.source IN $sources)
    AND ($minConfidence IS NULL OR n.confidence >= $minConfidence)
    AND ($tags IS NULL OR any(t IN n.tags WHERE t IN $tags))
    AND ($createdAfter IS NULL OR n.createdAt >= datetime($createdAfter))
    AND ($createdBefore IS NULL OR n.createdAt < datetime($createdBefore))
  WITH n, score ORDER BY score DESC, n.id LIMIT $pool
  RETURN collect({id: n.id, score: score}) AS textHits
}
RETURN vectorHits, textHits, size(vectorHits) AS matched
