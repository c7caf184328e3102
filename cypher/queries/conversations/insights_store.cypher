// Store extracted insights idempotently (by key), each linked to the message it came from.
// One list (db.listed).
UNWIND $rows AS row
MATCH (m:Message {userId: $userId, id: row.messageId})
MATCH (t:Thread {userId: $userId, id: $threadId})
MERGE (i:Insight {userId: $userId, key: row.key})
  ON CREATE SET i.id = row.id, i.threadId = $threadId, i.type = row.type, i.content = row.content,
                i.confidence = row.confidence, i.extractor = $extractor, i.extractedAt = datetime(),
                i.embeddingModel = $embeddingModel, i.tenantKey = $tenantKey, i.new = true
MERGE (i)-[:EXTRACTED_FROM]->(m)
MERGE (t)-[:HAS_INSIGHT]->(i)
WITH i, row, coalesce(i.new, false) AS created
REMOVE i.new
WITH i, row, created
CALL (i, row, created) {
  WITH * WHERE created
  CALL db.create.setNodeVectorProperty(i, 'embedding', row.embedding)
}
RETURN collect({id: i.id, created: created}) AS rows
