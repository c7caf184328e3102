// Notes of one user by id, as the API shows them (embedding only when asked for), each
// with its mergeCount and only its 3 newest merge records (the rest: note_merges, paged).
// Times are epoch milliseconds: hydrating driver DateTime objects costs more than the query.
// One list (db.listed): a batch reads a hundred notes, and a record costs more than a map.
MATCH (n:Knowledge)
WHERE n.userId = $userId AND n.id IN $ids
RETURN collect({node: n {
  .id, .title, .content, .type, .source, .confidence, .status, .tags, .mergeCount, .sourceRef,
  .createdByRole, .createdByAgent, .personFields, .validFrom, .validUntil, .invalidReason, .data,
  supersededFrom: [(s:Knowledge)-[:SUPERSEDES]->(n) | coalesce(s.validFrom, s.createdAt.epochMillis)],
  createdAt: n.createdAt.epochMillis, updatedAt: n.updatedAt.epochMillis,
  embedding: CASE WHEN $withEmbedding THEN n.embedding ELSE null END,
  merges: COLLECT {
    MATCH (n)-[:MERGED_FROM]->(m:MergedNote)
    WITH m ORDER BY m.mergedAt DESC, m.id DESC LIMIT 3
    RETURN m {
      .requestedId, .title, .content, .type, .source, .confidence, .sourceRef, .similarity, .data,
      mergedAt: m.mergedAt.epochMillis
    }
  }
}}) AS rows
