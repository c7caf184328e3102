// As knowledge_dedupe_exact, through the shared vector index with oversampling.
UNWIND $rows AS row
CALL (row) {
  CALL db.index.vector.queryNodes('knowledge_embedding', $candidates, row.embedding) YIELD node AS n
  WHERE n.userId = $userId AND n.status = 'active'
  WITH n, vector.similarity.cosine(n.embedding, row.embedding) AS score
  WHERE score >= $minScore
  RETURN n.id AS matchId, score
  ORDER BY score DESC, n.id
  LIMIT 1
}
RETURN row.index AS index, matchId, score
