// Delete up to $limit nodes of one user with their relationships; repeat until 0.
MATCH (n {userId: $userId})
WITH n LIMIT $limit
DETACH DELETE n
RETURN count(*) AS deleted
