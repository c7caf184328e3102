// For each new vector, the $limit most similar active notes of the user at or above $minScore
// (inside the key's entity scope, when it has one: a scoped key never merges into a note
// it cannot see), nearest first. One list (db.listed): a batch of 1,000 asks for 4,000 rows,
// and a record costs the driver more than a map inside one.
UNWIND $rows AS row
CALL (row) {
  MATCH (n:Knowledge)
  WHERE n.userId = $userId AND n.status = 'active'
    AND ($scope IS NULL OR n.id IN $scope.ids OR any(t IN coalesce(n.tags, []) WHERE t IN $scope.tags))
  WITH n, vector.similarity.cosine(n.embedding, row.embedding) AS score
  WHERE score >= $minScore
  WITH n, score
  ORDER BY score DESC, n.id
  LIMIT $limit
  RETURN collect({id: n.id, score: score}) AS matches
}
WITH row, matches WHERE size(matches) > 0
RETURN collect({index: row.index, matches: matches}) AS rows
