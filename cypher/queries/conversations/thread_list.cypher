// A user's threads, most recently active first, one page after the cursor (updatedAt, id).
MATCH (t:Thread)
WHERE t.userId = $userId
  AND ($contextType IS NULL OR t.contextType = $contextType)
  AND ($afterUpdatedAt IS NULL
       OR t.updatedAt < datetime($afterUpdatedAt)
       OR (t.updatedAt = datetime($afterUpdatedAt) AND t.id < $afterId))
RETURN t.id AS id, toString(t.updatedAt) AS updatedAt
ORDER BY t.updatedAt DESC, t.id DESC
LIMIT $limit
