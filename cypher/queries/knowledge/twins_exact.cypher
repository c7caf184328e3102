// For each new vector, the most similar active note of the user at or above $minScore.
UNWIND $rows AS row
CALL (row) {
  MATCH (n:Knowledge)
  WHERE n.userId = $userId AND n.status = 'active'
  WITH n, vector.similarity.cosine(n.embedding, row.embedding) AS score
  WHERE score >= $minScore
  RETURN n.id AS matchId, score
  ORDER BY score DESC, n.id
  LIMIT 1
}
RETURN row.index AS index, matchId, score
