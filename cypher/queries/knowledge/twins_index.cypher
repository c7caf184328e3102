// As twins_exact, through the shared vector index with oversampling
// (full-precision index: its scores are exact cosines).
UNWIND $rows AS row
CALL (row) {
  CALL db.index.vector.queryNodes('knowledge_embedding', $candidates, row.embedding) YIELD node AS n, score
  WHERE n.userId = $userId AND n.status = 'active' AND score >= $minScore
    AND ($scope IS NULL OR n.id IN $scope.ids OR any(t IN coalesce(n.tags, []) WHERE t IN $scope.tags))
  WITH n, score
  ORDER BY score DESC, n.id
  LIMIT $limit
  RETURN collect({id: n.id, score: score}) AS matches
}
WITH row, matches WHERE size(matches) > 0
RETURN collect({index: row.index, matches: matches}) AS rows
