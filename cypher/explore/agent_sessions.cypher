// An agent's sessions with a user as a graph: the chain (PREVIOUS), what each left open and
// what was carried into it.
// :param userId => 'dev'
// :param agentId => 'claude-code'
MATCH (a:Agent {userId: $userId, id: $agentId})-[ran:RAN]->(s:Session)
OPTIONAL MATCH (s)-[previous:PREVIOUS]->(before:Session)
OPTIONAL MATCH (s)-[held:LEFT_OPEN|CARRIES]->(p:PendingAction)
RETURN a, ran, s, previous, before, held, p
