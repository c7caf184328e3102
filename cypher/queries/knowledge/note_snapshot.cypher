// Everything an undo of a note's delete needs to bring it back: every property it holds
// (whatever its domain added: a decision's context and consequences, ...), its labels,
// which of its properties are times (as epoch milliseconds), its merge records and its
// edges in both directions; and its vector when asked for (kept with the delete's
// mutation and by a person's correction of an agent's note, never in the journal's JSON).
MATCH (n:Knowledge {userId: $userId, id: $id})
RETURN n {
  .*,
  userId: null, tenantKey: null, updatedAt: null,
  createdAt: n.createdAt.epochMillis,
  embedding: CASE WHEN $withEmbedding THEN n.embedding ELSE null END,
  embeddingModel: CASE WHEN $withEmbedding THEN n.embeddingModel ELSE null END,
  labels: [l IN labels(n) WHERE l <> 'Knowledge'],
  times: [k IN keys(n) WHERE k <> 'updatedAt' AND valueType(n[k]) STARTS WITH 'ZONED DATETIME'],
  merges: [(n)-[:MERGED_FROM]->(m:MergedNote) | m {
    .id, .requestedId, .title, .content, .type, .source, .confidence, .tags, .sourceRef, .similarity,
    .createdByRole, .createdByAgent, mergedAt: m.mergedAt.epochMillis
  }],
  edges: [(n)-[r]-(o:Knowledge)
    WHERE o.userId = $userId AND type(r) IN ['RELATED_TO', 'DEPENDS_ON', 'SUPERSEDES', 'CONFLICTS_WITH'] | {
    relType: type(r), sourceId: startNode(r).id, targetId: endNode(r).id,
    createdAt: r.createdAt.epochMillis, source: r.source, confidence: r.confidence, note: r.note,
    validFrom: r.validFrom, validUntil: r.validUntil,
    createdByRole: r.createdByRole, createdByAgent: r.createdByAgent
  }]
} AS note
