// Record that knowledge notes came from insights (provenance). The notes themselves were
// written (and journaled) by the create or the dedupe merge before this; this only links.
// `knowledgeAt` marks the insight as turned into knowledge for good: the loop never makes a
// note of it again, even after a person deleted that note.
UNWIND $rows AS row
MATCH (k:Knowledge {userId: $userId, id: row.knowledgeId})
MATCH (i:Insight {userId: $userId, id: row.insightId})
MERGE (k)-[d:DERIVED_FROM]->(i)
  ON CREATE SET d.createdAt = datetime()
SET i.knowledgeAt = coalesce(i.knowledgeAt, datetime())
RETURN count(d) AS linked
