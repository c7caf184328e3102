// Create a thread (idempotent by (userId, id)); `created` is false when it existed. A new
// thread keeps its topic's $embedding (by which a new decision finds the conversations it
// may affect), when one was computed, and the second model's ($notifyEmbedding by $notifyModel,
// graph/project/notify.py), when one compares.
OPTIONAL MATCH (existing:Thread {userId: $userId, id: $id})
MERGE (t:Thread {userId: $userId, id: $id})
  ON CREATE SET t.contextType = $contextType, t.topic = $topic, t.messageCount = 0,
                t.createdAt = datetime(), t.updatedAt = datetime(),
                t.createdByRole = $role, t.createdByAgent = $agentId
WITH existing, t
CALL (existing, t) {
  WITH existing, t WHERE existing IS NULL AND $embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(t, 'embedding', $embedding)
  SET t.embeddingModel = $embeddingModel
}
CALL (existing, t) {
  WITH existing, t WHERE existing IS NULL AND $notifyEmbedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(t, 'notifyEmbedding', $notifyEmbedding)
  SET t.notifyModel = $notifyModel
}
RETURN existing IS NULL AS created, t.contextType AS contextType, t.topic AS topic
