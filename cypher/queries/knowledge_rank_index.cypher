// Search ranking, index plan: the shared vector index oversampled ($candidates), narrowed
// to the user and filters; `matched` tells if it sufficed. The index holds full-precision
// vectors, so its scores are exact cosines and need no re-scoring.
// Plus the fulltext ranking; the caller fuses them.
CALL () {
  WITH $vector AS vector WHERE vector IS NOT NULL
  CALL db.index.vector.queryNodes('knowledge_embedding', $candidates, vector) YIELD node AS n, score
  WHERE n.userId = $userId AND n.status IN $statuses
    AND ($types IS NULL OR n.type IN $types)
    AND ($sources IS NULL OR n.source IN $sources)
    AND ($minConfidence IS NULL OR n.confidence >= $minConfidence)
    AND ($tags IS NULL OR any(t IN n.tags WHERE t IN $tags))
    AND ($createdAfter IS NULL OR n.createdAt >= datetime($createdAfter))
    AND ($createdBefore IS NULL OR n.createdAt < datetime($createdBefore))
  WITH n, score
  ORDER BY score DESC, n.id
  WITH collect({id: n.id, score: score}) AS ranked
  RETURN ranked[0..$pool] AS vectorHits, size(ranked) AS matched
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
RETURN vectorHits, textHits, matched
