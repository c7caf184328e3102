// The threads a decision's notices reached already (each notice points at its decision).
MATCH (m:Message)-[:ANNOUNCES]->(d:Knowledge {userId: $userId, id: $decisionId})
WHERE m.userId = $userId
RETURN collect(DISTINCT m.threadId) AS threadIds
