// A user's notes, newest first, filtered (and inside the key's entity scope, if any), one
// page after the cursor (createdAt, id).
MATCH (n:Knowledge)
WHERE n.userId = $userId
  AND ($type IS NULL OR n.type = $type)
  AND ($source IS NULL OR n.source = $source)
  AND ($status IS NULL OR n.status = $status)
  AND ($tag IS NULL OR $tag IN n.tags)
  AND ($scope IS NULL OR n.id IN $scope.ids OR any(t IN coalesce(n.tags, []) WHERE t IN $scope.tags))
  AND ($afterCreatedAt IS NULL
       OR n.createdAt < datetime($afterCreatedAt)
       OR (n.createdAt = datetime($afterCreatedAt) AND n.id < $afterId))
RETURN n.id AS id, toString(n.createdAt) AS createdAt
ORDER BY n.createdAt DESC, n.id DESC
LIMIT $limit
