// Create notes (idempotent by (userId, id)); the type sublabel comes from an allow-list.
UNWIND $rows AS row
MERGE (n:Knowledge {userId: $userId, id: row.id})
  ON CREATE SET
    n.title = row.title, n.content = row.content, n.type = row.type, n.source = row.source,
    n.confidence = row.confidence, n.tags = row.tags, n.status = 'active',
    n.createdAt = datetime(), n.updatedAt = datetime(),
    n.tenantKey = $tenantKey, n.embeddingModel = $embeddingModel,
    n.createdByRole = $role, n.createdByAgent = $agentId, n.mergeCount = 0,
    n:$(row.label)
WITH n, row
CALL db.create.setNodeVectorProperty(n, 'embedding', row.embedding)
RETURN n.id AS id, n.createdAt.epochMillis AS createdAt
