// The notices a decision left in conversations point at it, so Browser shows where each
// decision was announced: (:Message)-[:ANNOUNCES]->(:ArchitectureDecision).
MATCH (d:Knowledge {userId: $userId, id: $decisionId})
UNWIND $messageIds AS messageId
MATCH (m:Message {userId: $userId, id: messageId})
MERGE (m)-[:ANNOUNCES]->(d)
