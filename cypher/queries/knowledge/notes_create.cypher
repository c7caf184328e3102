// Create notes the write gate found absent (CREATE: the uniqueness constraint on
// (userId, id) refuses a duplicate outright), keeping the user's note count; the type
// sublabel comes from an allow-list.
UNWIND $rows AS row
CREATE (n:Knowledge:$(row.label) {
  userId: $userId, id: row.id, title: row.title, content: row.content, type: row.type,
  source: row.source, confidence: row.confidence, tags: row.tags, status: 'active',
  createdAt: datetime(), updatedAt: datetime(), tenantKey: $tenantKey,
  embeddingModel: $embeddingModel, createdByRole: $role, createdByAgent: $agentId, mergeCount: 0
})
WITH n, row
CALL db.create.setNodeVectorProperty(n, 'embedding', row.embedding)
WITH collect({id: n.id, createdAt: n.createdAt.epochMillis}) AS created
MATCH (t:Tenant {userId: $userId})
SET t.notes = t.notes + size(created)
WITH created
UNWIND created AS c
RETURN c.id AS id, c.createdAt AS createdAt
