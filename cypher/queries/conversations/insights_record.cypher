// Record insights found outside the service (an extractor of the caller's, or an export
// read back) into one of the user's threads, as extraction stores them: keyed by message,
// type and content, each linked to its message, with its vector. An insight keeps the id,
// extractor and time it was given; the notes named as made from it are linked
// (DERIVED_FROM) and mark it as turned into knowledge, as consolidation does. Ids, keys,
// messages and notes were checked by the caller under the user's write gate.
MATCH (t:Thread {userId: $userId, id: $threadId})
UNWIND $rows AS row
MATCH (m:Message {userId: $userId, id: row.messageId})
MERGE (i:Insight {userId: $userId, key: row.key})
  ON CREATE SET i.id = row.id, i.threadId = $threadId, i.type = row.type, i.content = row.content,
                i.confidence = row.confidence, i.extractor = row.extractor,
                i.extractedAt = coalesce(datetime(row.extractedAt), datetime()),
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
CALL (i, row) {
  UNWIND row.knowledgeIds AS kid
  MATCH (k:Knowledge {userId: $userId, id: kid})
  MERGE (k)-[d:DERIVED_FROM]->(i)
    ON CREATE SET d.createdAt = datetime(), d.new = true
  SET i.knowledgeAt = coalesce(i.knowledgeAt, datetime())
  WITH kid, d, d.new IS NOT NULL AS linked
  REMOVE d.new
  RETURN collect(CASE WHEN linked THEN kid END) AS linked
}
RETURN i.id AS id, created, linked
