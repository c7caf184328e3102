// Replace an agent's documentation: its base instructions on the Agent node, and one
// AgentDoc node per line ($lines: kind capability or constraint, position, text, embedding),
// its id `<agent>:<kind>:<position>`.
MERGE (a:Agent {userId: $userId, id: $agentId})
SET a.baseInstructions = $baseInstructions, a.docsUpdatedAt = datetime()
WITH a
CALL (a) {
  MATCH (a)-[:DOCUMENTED_BY]->(old:AgentDoc)
  DETACH DELETE old
}
WITH a
UNWIND $lines AS line
CREATE (d:AgentDoc {
  userId: $userId, agentId: $agentId, id: $agentId + ':' + line.kind + ':' + toString(line.position), kind: line.kind, position: line.position, text: line.text,
  embeddingModel: $embeddingModel
})
CREATE (a)-[:DOCUMENTED_BY]->(d)
WITH d, line
CALL db.create.setNodeVectorProperty(d, 'embedding', line.embedding)
RETURN count(d) AS lines
