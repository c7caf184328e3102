// Undo a dedupe merge: remove its merge record and put the note's confidence, tags and merge
// count back as they were before it.
MATCH (k:Knowledge {userId: $userId, id: $id})
OPTIONAL MATCH (k)-[:MERGED_FROM]->(m:MergedNote {userId: $userId, id: $mergeId})
DETACH DELETE m
SET k.confidence = $confidence, k.tags = $tags, k.mergeCount = $mergeCount, k.updatedAt = datetime()
RETURN k.id AS id
