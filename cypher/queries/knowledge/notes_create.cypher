// Create notes the write gate found absent (CREATE: the uniqueness constraint on
// (userId, id) refuses a duplicate outright), keeping the user's note count; the type
// sublabel comes from an allow-list. Each new note's journal entry is created here too,
// linked to the note as it is made (the shape queries/core/mutation_record writes: a
// note.create with the fields after, in the write $seq, at its part). A person's new note
// has every field person-written (`personFields`, as queries/core/mutation_record keeps it);
// `vectorSupplied` marks a vector the client sent rather than the service's own. Valid time
// (validFrom, validUntil) is epoch milliseconds, absent when open. A note created with
// dedupe off says so on its entry (`uncompared`): the judge does not compare it either.
// `data` is the note's payload as compact JSON text (absent: none), stored as it came.
UNWIND $rows AS row
CREATE (n:Knowledge:$(row.label) {
  userId: $userId, id: row.id, title: row.title, content: row.content, type: row.type,
  source: row.source, confidence: row.confidence, tags: row.tags, sourceRef: row.sourceRef, status: 'active',
  validFrom: row.validFrom, validUntil: row.validUntil, data: row.data,
  createdAt: datetime(), updatedAt: datetime(), tenantKey: $tenantKey,
  embeddingModel: $embeddingModel, createdByRole: $role, createdByAgent: $agentId, mergeCount: 0,
  personFields: CASE WHEN $role = 'human' THEN row.mutation.written ELSE [] END,
  vectorSupplied: row.vectorSupplied
})
CREATE (:Mutation {
  userId: $userId, id: row.mutation.id, seq: $seq, part: row.mutation.part, at: n.createdAt,
  role: $role, agentId: $agentId, keyId: $keyId, sessionId: $sessionId, op: 'note.create',
  targetType: 'Knowledge', targetId: row.id, after: row.mutation.after,
  proposalId: row.mutation.proposalId, uncompared: row.uncompared
})-[:CHANGED]->(n)
WITH n, row
CALL db.create.setNodeVectorProperty(n, 'embedding', row.embedding)
WITH collect({id: n.id, createdAt: n.createdAt.epochMillis}) AS created
MATCH (t:Tenant {userId: $userId})
SET t.notes = t.notes + size(created)
WITH created
UNWIND created AS c
RETURN c.id AS id, c.createdAt AS createdAt
