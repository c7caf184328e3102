// Which of these ids are notes of this user (edges must never dangle) that the key's entity
// scope, if any, lets it see.
MATCH (n:Knowledge)
WHERE n.userId = $userId AND n.id IN $ids
  AND ($scope IS NULL OR n.id IN $scope.ids OR any(t IN coalesce(n.tags, []) WHERE t IN $scope.tags))
RETURN collect(n.id) AS ids
