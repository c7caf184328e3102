// Conflicts between two of the user's notes that are both superseded: the conflict may be
// moot, or the notes that replaced them may carry it on; a person decides (report only).
MATCH (a:Knowledge {userId: $userId})-[:CONFLICTS_WITH]->(b:Knowledge {userId: $userId})
WHERE a.status = 'superseded' AND b.status = 'superseded'
RETURN a.id AS sourceId, b.id AS targetId
ORDER BY sourceId, targetId
