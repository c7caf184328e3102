// The notes that supersede this one.
MATCH (n:Knowledge {userId: $userId, id: $id})
OPTIONAL MATCH (by:Knowledge)-[:SUPERSEDES]->(n)
RETURN collect(by.id) AS ids
