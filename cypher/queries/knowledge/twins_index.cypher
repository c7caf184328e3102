// As twins_exact, through the shared vector index with oversampling
// (full-precision index: its scores are exact cosines). Each row also says whether its
// answer is complete, so that asking for more candidates would change nothing: it holds
// $limit notes, the last of them nearer than the farthest candidate (no note outside ties
// with it), or the index had no more than $candidates notes. A row short of $limit is not
// complete even when its candidates reached below $minScore: a smaller ask of the index
// misses a few notes a larger one finds (bench/candidate_query.py).
UNWIND $rows AS row
CALL (row) {
  CALL db.index.vector.queryNodes('knowledge_embedding', $candidates, row.embedding) YIELD node AS n, score
  WITH count(*) AS seen, min(score) AS lowest,
    collect(CASE
      WHEN score >= $minScore AND n.userId = $userId AND n.status = 'active'
        AND ($scope IS NULL OR n.id IN $scope.ids OR any(t IN coalesce(n.tags, []) WHERE t IN $scope.tags))
      THEN {id: n.id, score: score}
    END) AS kept
  RETURN COLLECT {
    UNWIND kept AS match
    WITH match ORDER BY match.score DESC, match.id
    LIMIT $limit
    RETURN match
  } AS matches, seen < $candidates AS everything, lowest
}
WITH row, matches, everything OR (size(matches) >= $limit AND matches[$limit - 1].score > lowest) AS complete
WHERE size(matches) > 0 OR NOT complete
RETURN collect({index: row.index, matches: matches, complete: complete}) AS rows
