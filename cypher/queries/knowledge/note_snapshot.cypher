// Everything an undo of a note's delete needs to bring it back (its fields, who created
// it and when, its merge records and its edges in both directions), and its vector when
// asked for (kept only by a person's correction of an agent's note, never in the journal).
MATCH (n:Knowledge {userId: $userId, id: $id})
RETURN n {
  .id, .title, .content, .type, .source, .confidence, .status, .tags, .mergeCount, .sourceRef,
  .createdByRole, .createdByAgent,
  createdAt: n.createdAt.epochMillis,
  embedding: CASE WHEN $withEmbedding THEN n.embedding ELSE null END,
  embeddingModel: CASE WHEN $withEmbedding THEN n.embeddingModel ELSE null END,
  merges: [(n)-[:MERGED_FROM]->(m:MergedNote) | m {
    .id, .requestedId, .title, .content, .type, .source, .confidence, .tags, .sourceRef, .similarity,
    .createdByRole, .createdByAgent, mergedAt: m.mergedAt.epochMillis
  }],
  edges: [(n)-[r]-(o:Knowledge)
    WHERE o.userId = $userId AND type(r) IN ['RELATED_TO', 'DEPENDS_ON', 'SUPERSEDES', 'CONFLICTS_WITH'] | {
    relType: type(r), sourceId: startNode(r).id, targetId: endNode(r).id,
    createdAt: r.createdAt.epochMillis, source: r.source, confidence: r.confidence, note: r.note,
    createdByRole: r.createdByRole, createdByAgent: r.createdByAgent
  }]
} AS note
