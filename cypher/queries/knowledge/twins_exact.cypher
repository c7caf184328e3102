// For each new vector, the $limit most similar active notes of the user at or above $minScore
// (inside the key's entity scope, when it has one: a scoped key never merges into a note
// it cannot see).
UNWIND $rows AS row
CALL (row) {
  MATCH (n:Knowledge)
  WHERE n.userId = $userId AND n.status = 'active'
    AND ($scope IS NULL OR n.id IN $scope.ids OR any(t IN coalesce(n.tags, []) WHERE t IN $scope.tags))
  WITH n, vector.similarity.cosine(n.embedding, row.embedding) AS score
  WHERE score >= $minScore
  RETURN n.id AS matchId, score
  ORDER BY score DESC, n.id
  LIMIT $limit
}
RETURN row.index AS index, matchId, score
