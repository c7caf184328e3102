// The active goals under a goal of a user's, at any depth, the deepest last; each says
// whether $agentId set it (`sees`) and whether it hangs from the goal through goals $agentId
// set only (`reached`: what an abandon by that caller takes with it). $agentId null (an
// unscoped key): every goal is seen and reached.
MATCH (g:Goal {userId: $userId, id: $id})
OPTIONAL MATCH path = (s:Goal)-[:SUBGOAL_OF]->+(g)
WHERE s.status = 'active'
WITH s, max(length(path)) AS depth,
  max(CASE WHEN all(x IN nodes(path)[..-1] WHERE $agentId IS NULL OR x.createdByAgent = $agentId)
      THEN 1 ELSE 0 END) AS reached
ORDER BY depth, s.id
WITH collect(CASE WHEN s IS NOT NULL THEN {
  id: s.id, sees: $agentId IS NULL OR s.createdByAgent = $agentId, reached: reached = 1
} END) AS active
RETURN active
