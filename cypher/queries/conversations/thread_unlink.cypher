// Remove the link between two of a user's threads.
MATCH (a:Thread {userId: $userId, id: $id})-[r:RELATED_THREAD]-(b:Thread {userId: $userId, id: $otherId})
DELETE r
RETURN count(r) AS unlinked
