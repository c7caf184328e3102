// An agent as a node of each user it works for (never shared between users), so Neo4j
// Browser shows whose sessions are whose: (:Agent)-[:RAN]->(:Session).
CREATE CONSTRAINT agent_key IF NOT EXISTS
FOR (a:Agent) REQUIRE (a.userId, a.id) IS UNIQUE
