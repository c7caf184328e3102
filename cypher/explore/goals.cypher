// A user's goal stack as a tree: each goal with the goal it is a step of, active ones
// first. Switch to the graph view to see the tree.
// :param userId => 'dev'
MATCH (g:Goal {userId: $userId})
OPTIONAL MATCH (g)-[:SUBGOAL_OF]->(parent:Goal)
RETURN g, parent
ORDER BY CASE g.status WHEN 'active' THEN 0 ELSE 1 END, g.createdAt DESC
LIMIT 200
