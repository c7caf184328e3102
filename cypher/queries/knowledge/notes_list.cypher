// A user's notes, newest first, filtered (and inside the key's entity scope, if any), one
// page after the cursor (createdAt, id). Valid time (epoch ms): $validAt leaves out notes whose
// validity ended by then (stated, or superseded by a note begun by then); $asOf (with $validAt
// the same moment) keeps those begun by then too: what was true then. $createdBy keeps the
// notes recorded by then (what the memory may have held).
MATCH (n:Knowledge)
WHERE n.userId = $userId
  AND ($type IS NULL OR n.type = $type)
  AND ($source IS NULL OR n.source = $source)
  AND ($status IS NULL OR n.status = $status)
  AND ($tag IS NULL OR $tag IN n.tags)
  AND ($createdBy IS NULL OR n.createdAt <= datetime({epochMillis: $createdBy}))
  AND ($validAt IS NULL OR ((n.validUntil IS NULL OR n.validUntil > $validAt)
       AND NOT EXISTS {
         MATCH (s:Knowledge)-[:SUPERSEDES]->(n) WHERE coalesce(s.validFrom, s.createdAt.epochMillis) <= $validAt
       }))
  AND ($asOf IS NULL OR coalesce(n.validFrom, CASE WHEN n.validUntil <= n.createdAt.epochMillis THEN 0
          ELSE n.createdAt.epochMillis END) <= $asOf)
  AND ($scope IS NULL OR n.id IN $scope.ids OR any(t IN coalesce(n.tags, []) WHERE t IN $scope.tags))
  AND ($afterCreatedAt IS NULL
       OR n.createdAt < datetime($afterCreatedAt)
       OR (n.createdAt = datetime($afterCreatedAt) AND n.id < $afterId))
WITH n ORDER BY n.createdAt DESC, n.id DESC
LIMIT $limit
RETURN collect({id: n.id, createdAt: toString(n.createdAt)}) AS rows
