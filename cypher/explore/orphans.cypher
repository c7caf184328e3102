// Orphans: notes with no knowledge edge at all (candidates to connect or archive).
// :param userId => 'dev'
MATCH (n:Knowledge {userId: $userId})
WHERE NOT EXISTS { (n)-[:RELATED_TO|DEPENDS_ON|SUPERSEDES|CONFLICTS_WITH]-() }
RETURN n.id AS id, n.title AS title, n.type AS type, n.status AS status, n.createdAt AS created
ORDER BY created DESC
