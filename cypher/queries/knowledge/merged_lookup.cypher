// Earlier creates (by requested id) that were merged into an existing note.
MATCH (k:Knowledge)-[:MERGED_FROM]->(m:MergedNote)
WHERE m.userId = $userId AND m.requestedId IN $ids AND k.userId = $userId
RETURN m.requestedId AS requestedId, k.id AS targetId
