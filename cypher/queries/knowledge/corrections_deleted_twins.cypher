// For each new vector, the nearest note a person deleted from an agent (an active delete
// correction keeps that note's vector) at or above $minScore: an agent may not write it back.
UNWIND $rows AS row
CALL (row) {
  MATCH (c:Correction {userId: $userId, kind: 'delete'})
  WHERE c.status = 'active' AND c.embedding IS NOT NULL
  WITH c, vector.similarity.cosine(c.embedding, row.embedding) AS score
  WHERE score >= $minScore
  RETURN c.id AS correctionId, c.targetId AS targetId, score
  ORDER BY score DESC, c.id
  LIMIT 1
}
RETURN row.index AS index, correctionId, targetId, score
