// The active goals under a goal of a user's, at any depth, the deepest last.
MATCH (g:Goal {userId: $userId, id: $id})
OPTIONAL MATCH path = (s:Goal)-[:SUBGOAL_OF]->+(g)
WHERE s.status = 'active'
WITH s, max(length(path)) AS depth
ORDER BY depth, s.id
RETURN [x IN collect(s.id) WHERE x IS NOT NULL] AS active
