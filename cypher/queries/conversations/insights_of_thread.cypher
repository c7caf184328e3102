// A thread's insights above a confidence, with whether knowledge was already derived from them.
MATCH (i:Insight)
WHERE i.userId = $userId AND i.threadId = $threadId AND i.confidence > $minConfidence
RETURN i.id AS id, i.type AS type, i.content AS content, i.confidence AS confidence,
       EXISTS { (:Knowledge)-[:DERIVED_FROM]->(i) } AS consolidated
ORDER BY i.extractedAt, i.id
