// The user's superseded notes whose every superseder is archived: what replaced them was
// itself retired, so the note may deserve to be active again or archived too; a person
// decides (report only).
MATCH (n:Knowledge {userId: $userId})
WHERE n.status = 'superseded'
WITH n, [(s:Knowledge)-[:SUPERSEDES]->(n) WHERE s.userId = $userId | s] AS by
WHERE size(by) > 0 AND all(s IN by WHERE s.status = 'archived')
RETURN n.id AS id, [s IN by | s.id] AS supersededBy
ORDER BY id
