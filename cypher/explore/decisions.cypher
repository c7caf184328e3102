// A project's architecture decisions: each current (active) decision with the chain of
// decisions it superseded, newest first, the agents it affects (none: every agent), the
// notes that depend on it and the conversations it was announced in. Return `p` to see the
// chain as a graph in Browser.
// :param userId => 'dev'
MATCH (d:ArchitectureDecision {userId: $userId})
WHERE d.status = 'active'
OPTIONAL MATCH p = (d)-[:SUPERSEDES*1..10]->(old:ArchitectureDecision)
WHERE NOT EXISTS { (old)-[:SUPERSEDES]->(:ArchitectureDecision) }
WITH d, p
ORDER BY length(p) DESC
WITH d, head(collect(p)) AS p
RETURN d.decidedOn AS date, d.title AS decision, d.content AS text,
       CASE WHEN size(d.agents) = 0 THEN ['every agent'] ELSE d.agents END AS agents,
       [x IN nodes(p)[1..] | x.decidedOn + ' ' + x.title + ' (' + x.status + ')'] AS supersededChain,
       [(n:Knowledge)-[:DEPENDS_ON]->(d) | n.title] AS dependedOnBy,
       [(t:Thread)-[:HAS_MESSAGE]->(:Message)-[:ANNOUNCES]->(d) | t.topic] AS announcedIn,
       p
ORDER BY date DESC, decision
