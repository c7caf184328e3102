// Contradictions to resolve: pairs of active notes joined by CONFLICTS_WITH.
// :param userId => 'dev'
MATCH (a:Knowledge {userId: $userId})-[c:CONFLICTS_WITH]->(b:Knowledge {userId: $userId})
WHERE a.status = 'active' AND b.status = 'active'
RETURN a.title AS one, b.title AS other, c.confidence AS confidence, c.note AS note, a, c, b
