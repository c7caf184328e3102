// Every typed edge of a user's (both ends theirs, and inside the key's entity scope, if
// any), in the order of their key "<sourceId> <TYPE> <targetId>", one page after $after.
// What an export reads; each note's outgoing edges through the (userId, id) key.
MATCH (s:Knowledge)
WHERE s.userId = $userId AND s.id IS NOT NULL
  AND ($scope IS NULL OR s.id IN $scope.ids OR any(t IN coalesce(s.tags, []) WHERE t IN $scope.tags))
  AND ($afterSource IS NULL OR s.id >= $afterSource)
MATCH (s)-[r]->(t:Knowledge)
WHERE type(r) IN $relTypes AND t.userId = $userId
  AND ($scope IS NULL OR t.id IN $scope.ids OR any(x IN coalesce(t.tags, []) WHERE x IN $scope.tags))
WITH s, r, t, s.id + ' ' + type(r) + ' ' + t.id AS key
WHERE $after IS NULL OR key > $after
RETURN key, {
  type: type(r), sourceId: s.id, targetId: t.id,
  createdAt: r.createdAt.epochMillis, source: r.source, confidence: r.confidence, note: r.note, validFrom: r.validFrom, validUntil: r.validUntil
} AS edge
ORDER BY key
LIMIT $limit
