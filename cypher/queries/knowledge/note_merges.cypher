// One page of a note's merge records, newest first, after the cursor (mergedAt as Neo4j
// writes it, then the record's id): what GET /v1/knowledge/{id}/merges shows. No row when
// the user has no such note; the note's tags let the service check a scoped key's reach.
MATCH (n:Knowledge {userId: $userId, id: $id})
CALL (n) {
  OPTIONAL MATCH (n)-[:MERGED_FROM]->(m:MergedNote)
  WHERE $afterMergedAt IS NULL
     OR m.mergedAt < datetime($afterMergedAt)
     OR (m.mergedAt = datetime($afterMergedAt) AND m.id < $afterId)
  WITH m ORDER BY m.mergedAt DESC, m.id DESC LIMIT $limit
  RETURN collect(m {
    .id, .requestedId, .title, .content, .type, .source, .confidence, .sourceRef, .similarity, .data,
    mergedAt: m.mergedAt.epochMillis, position: toString(m.mergedAt)
  }) AS merges
}
RETURN n.tags AS tags, coalesce(n.mergeCount, 0) AS mergeCount, merges
