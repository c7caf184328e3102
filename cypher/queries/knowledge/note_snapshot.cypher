// Everything an undo of a note's delete needs to bring it back: every property it holds
// (whatever its domain added: a decision's context and consequences, ...), its labels,
// which of its properties are times (as epoch milliseconds) and its edges in both
// directions (a delete journals each as its own edge.disconnect); and its vector when
// asked for (kept with the delete's mutation and by a person's correction of an agent's
// note, never in the journal's JSON). Its merge records are not read: a delete keeps them
// where they are, held by its mutation (queries/knowledge/note_delete).
MATCH (n:Knowledge {userId: $userId, id: $id})
RETURN n {
  .*,
  userId: null, tenantKey: null, updatedAt: null,
  createdAt: n.createdAt.epochMillis,
  embedding: CASE WHEN $withEmbedding THEN n.embedding ELSE null END,
  embeddingModel: CASE WHEN $withEmbedding THEN n.embeddingModel ELSE null END,
  labels: [l IN labels(n) WHERE l <> 'Knowledge'],
  times: [k IN keys(n) WHERE k <> 'updatedAt' AND valueType(n[k]) STARTS WITH 'ZONED DATETIME'],
  edges: [(n)-[r]-(o:Knowledge)
    WHERE o.userId = $userId AND type(r) IN ['RELATED_TO', 'DEPENDS_ON', 'SUPERSEDES', 'CONFLICTS_WITH'] | {
    relType: type(r), sourceId: startNode(r).id, targetId: endNode(r).id,
    createdAt: r.createdAt.epochMillis, source: r.source, confidence: r.confidence, note: r.note,
    validFrom: r.validFrom, validUntil: r.validUntil,
    createdByRole: r.createdByRole, createdByAgent: r.createdByAgent, confirmedByPerson: r.confirmedByPerson
  }]
} AS note
