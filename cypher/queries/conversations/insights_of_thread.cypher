// A thread's insights above a confidence, with whether they were turned into knowledge
// already (even if that note has since been deleted), and when the message it came from was
// said (`saidAt`, epoch ms: the fact's validFrom when it becomes knowledge).
MATCH (i:Insight)
WHERE i.userId = $userId AND i.threadId = $threadId AND i.confidence > $minConfidence
RETURN i.id AS id, i.type AS type, i.content AS content, i.confidence AS confidence,
       i.knowledgeAt IS NOT NULL OR EXISTS { (:Knowledge)-[:DERIVED_FROM]->(i) } AS consolidated,
       [(i)-[:EXTRACTED_FROM]->(m:Message) | m.createdAt.epochMillis][0] AS saidAt
ORDER BY i.extractedAt, i.id
