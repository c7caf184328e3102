// An agent's documentation as written: base instructions, capabilities and its own
// constraints in their order; no row when it has none.
MATCH (a:Agent {userId: $userId, id: $agentId})
WHERE a.docsUpdatedAt IS NOT NULL
RETURN a.baseInstructions AS baseInstructions, a.docsUpdatedAt.epochMillis AS updatedAt,
       [(a)-[:DOCUMENTED_BY]->(d:AgentDoc) WHERE d.kind = 'capability' | d {.position, .text}] AS capabilities,
       [(a)-[:DOCUMENTED_BY]->(d:AgentDoc) WHERE d.kind = 'constraint' | d {.position, .text}] AS constraints
