// The user's threads holding insights above the consolidation threshold that were never
// turned into knowledge (as queries/conversations/insights_of_thread judges it), with how
// many each holds: the threads the consolidate task visits.
MATCH (i:Insight)
WHERE i.userId = $userId AND i.threadId IS NOT NULL AND i.confidence > $minConfidence
  AND i.knowledgeAt IS NULL AND NOT EXISTS { (:Knowledge)-[:DERIVED_FROM]->(i) }
  AND EXISTS { (:Thread {userId: $userId, id: i.threadId}) }
RETURN i.threadId AS threadId, count(*) AS insights
ORDER BY threadId
