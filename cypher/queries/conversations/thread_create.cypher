// Create a thread (idempotent by (userId, id)); `created` is false when it existed.
OPTIONAL MATCH (existing:Thread {userId: $userId, id: $id})
MERGE (t:Thread {userId: $userId, id: $id})
  ON CREATE SET t.contextType = $contextType, t.topic = $topic, t.messageCount = 0,
                t.createdAt = datetime(), t.updatedAt = datetime(),
                t.createdByRole = $role, t.createdByAgent = $agentId
RETURN existing IS NULL AS created, t.contextType AS contextType, t.topic AS topic
