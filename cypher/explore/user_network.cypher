// A user's knowledge network: notes and the typed edges between them (first 300 notes).
// :param userId => 'dev'
MATCH (n:Knowledge {userId: $userId})
WITH n LIMIT 300
OPTIONAL MATCH p = (n)-[:RELATED_TO|DEPENDS_ON|SUPERSEDES|CONFLICTS_WITH]->(:Knowledge {userId: $userId})
RETURN n, p
