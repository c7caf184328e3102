// As twins_exact, through the shared vector index with oversampling
// (full-precision index: its scores are exact cosines).
UNWIND $rows AS row
CALL (row) {
  CALL db.index.vector.queryNodes('knowledge_embedding', $candidates, row.embedding) YIELD node AS n, score
  WHERE n.userId = $userId AND n.status = 'active' AND score >= $minScore
    AND ($scope IS NULL OR n.id IN $scope.ids OR any(t IN coalesce(n.tags, []) WHERE t IN $scope.tags))
  RETURN n.id AS matchId, score
  ORDER BY score DESC, n.id
  LIMIT $limit
}
RETURN row.index AS index, matchId, score
