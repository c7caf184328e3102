// For each new vector, the nearest agent text a person took away at or above $minScore: a
// note they deleted, or the title and content they corrected (an active correction keeps
// the vector of what it removed). An agent may not write it back.
UNWIND $rows AS row
CALL (row) {
  MATCH (c:Correction)
  WHERE c.userId = $userId AND c.kind IN ['delete', 'update']
    AND c.status = 'active' AND c.embedding IS NOT NULL
  WITH c, vector.similarity.cosine(c.embedding, row.embedding) AS score
  WHERE score >= $minScore
  RETURN c.id AS correctionId, c.targetId AS targetId, score
  ORDER BY score DESC, c.id
  LIMIT 1
}
RETURN row.index AS index, correctionId, targetId, score
