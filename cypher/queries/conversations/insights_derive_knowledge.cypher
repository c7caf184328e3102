// Record that knowledge notes came from insights (provenance), and refresh updated notes.
// `knowledgeAt` marks the insight as turned into knowledge for good: the loop never makes a
// note of it again, even after a person deleted that note.
UNWIND $rows AS row
MATCH (k:Knowledge {userId: $userId, id: row.knowledgeId})
MATCH (i:Insight {userId: $userId, id: row.insightId})
MERGE (k)-[d:DERIVED_FROM]->(i)
  ON CREATE SET d.createdAt = datetime()
SET i.knowledgeAt = coalesce(i.knowledgeAt, datetime()),
    k.confidence = CASE WHEN row.updated AND i.confidence > k.confidence THEN i.confidence ELSE k.confidence END,
    k.updatedAt = CASE WHEN row.updated THEN datetime() ELSE k.updatedAt END
RETURN count(d) AS linked
