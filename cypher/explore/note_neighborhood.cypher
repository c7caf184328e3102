// One note and everything within two hops along the four knowledge edges.
// :param userId => 'dev'
// :param noteId => 'api-auth'
MATCH (n:Knowledge {userId: $userId, id: $noteId})
OPTIONAL MATCH p = (n)-[:RELATED_TO|DEPENDS_ON|SUPERSEDES|CONFLICTS_WITH*1..2]-(:Knowledge {userId: $userId})
RETURN n, p
