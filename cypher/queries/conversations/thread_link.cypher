// Relate two of a user's threads (one undirected link, idempotent); says whether it is new.
MATCH (a:Thread {userId: $userId, id: $id})
MATCH (b:Thread {userId: $userId, id: $otherId})
OPTIONAL MATCH (a)-[known:RELATED_THREAD]-(b)
WITH a, b, known IS NULL AS created
MERGE (a)-[r:RELATED_THREAD]-(b)
  ON CREATE SET r.createdAt = datetime()
RETURN count(r) AS linked, created
