// A note's edges in both directions (to notes the key's entity scope, if any, lets it see),
// in the order of their key "<sourceId> <TYPE> <targetId>", one page after $after.
MATCH (n:Knowledge {userId: $userId, id: $id})-[r]-(m:Knowledge)
WHERE m.userId = $userId AND type(r) IN $relTypes
  AND ($scope IS NULL OR m.id IN $scope.ids OR any(t IN coalesce(m.tags, []) WHERE t IN $scope.tags))
WITH r, startNode(r).id + ' ' + type(r) + ' ' + endNode(r).id AS key
WHERE $after IS NULL OR key > $after
RETURN key, {
  type: type(r), sourceId: startNode(r).id, targetId: endNode(r).id,
  createdAt: r.createdAt.epochMillis, source: r.source, confidence: r.confidence, note: r.note, validFrom: r.validFrom, validUntil: r.validUntil
} AS edge
ORDER BY key
LIMIT $limit
