// Notes of one user by id, as the API shows them (embedding only when asked for).
MATCH (n:Knowledge)
WHERE n.userId = $userId AND n.id IN $ids
RETURN n {
  .id, .title, .content, .type, .source, .confidence, .status, .tags,
  .createdAt, .updatedAt, .mergeCount,
  embedding: CASE WHEN $withEmbedding THEN n.embedding ELSE null END,
  merges: [(n)-[:MERGED_FROM]->(m:MergedNote) | m {
    .requestedId, .title, .content, .type, .source, .confidence, .similarity, .mergedAt
  }]
} AS node
