// Notes of one user by id, as the API shows them (embedding only when asked for).
// Times are epoch milliseconds: hydrating driver DateTime objects costs more than the query.
MATCH (n:Knowledge)
WHERE n.userId = $userId AND n.id IN $ids
RETURN n {
  .id, .title, .content, .type, .source, .confidence, .status, .tags, .mergeCount, .sourceRef,
  createdAt: n.createdAt.epochMillis, updatedAt: n.updatedAt.epochMillis,
  embedding: CASE WHEN $withEmbedding THEN n.embedding ELSE null END,
  merges: [(n)-[:MERGED_FROM]->(m:MergedNote) | m {
    .requestedId, .title, .content, .type, .source, .confidence, .sourceRef, .similarity,
    mergedAt: m.mergedAt.epochMillis
  }]
} AS node
