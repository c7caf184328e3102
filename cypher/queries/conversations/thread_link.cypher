// Relate two of a user's threads (one undirected link, idempotent).
MATCH (a:Thread {userId: $userId, id: $id})
MATCH (b:Thread {userId: $userId, id: $otherId})
MERGE (a)-[r:RELATED_THREAD]-(b)
  ON CREATE SET r.createdAt = datetime()
RETURN count(r) AS linked
