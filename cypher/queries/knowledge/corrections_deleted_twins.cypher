// For each reading of a text an agent writes (the service's own vector and fingerprint),
// the agent text a person took away that it restates: a note they deleted, or the title
// and content they corrected away (an active correction keeps the vector and fingerprint
// of what it removed). The same fingerprint is a twin at similarity 1; otherwise the
// nearest vector at or above $minScore. An agent may not write it back.
UNWIND $rows AS row
CALL (row) {
  MATCH (c:Correction)
  WHERE c.userId = $userId AND c.kind IN ['delete', 'update'] AND c.status = 'active'
    AND (c.fingerprint = row.fingerprint OR c.embedding IS NOT NULL)
  WITH c, CASE
    WHEN c.fingerprint = row.fingerprint THEN 1.0
    ELSE vector.similarity.cosine(c.embedding, row.embedding)
  END AS score
  WHERE score >= $minScore
  RETURN c.id AS correctionId, c.targetId AS targetId, score
  ORDER BY score DESC, c.id
  LIMIT 1
}
RETURN row.index AS index, correctionId, targetId, score
