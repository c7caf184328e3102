// Cross-session recall, index plan: the shared insight index oversampled and narrowed to
// the user (its full-precision scores are exact cosines); `matched` tells if it sufficed.
// Only the top $limit are projected, not every candidate.
CALL db.index.vector.queryNodes('insight_embedding', $candidates, $vector) YIELD node AS i, score
WHERE i.userId = $userId
  // An insight whose fact has ended (the note drawn from it superseded, or its validity over by
  // $validAt) is not recalled: reads that feed an agent serve what is true now.
  AND NOT EXISTS {
    MATCH (k:Knowledge)-[:DERIVED_FROM]->(i) WHERE k.status = 'superseded' OR k.validUntil <= $validAt
  }
WITH i, score
ORDER BY score DESC, i.id
WITH collect({node: i, score: score}) AS ranked
CALL (ranked) {
  UNWIND ranked[0..$limit] AS hit
  WITH hit.node AS i, hit.score AS score
  RETURN collect({insight: i {
    .id, .threadId, .sessionId, .pageSlug, .type, .content, .confidence, .extractor,
    extractedAt: i.extractedAt.epochMillis,
    messageId: [(i)-[:EXTRACTED_FROM]->(m:Message) | m.id][0],
    knowledgeIds: [(k:Knowledge)-[:DERIVED_FROM]->(i) | k.id]
  }, score: score}) AS hits
}
RETURN size(ranked) AS matched, hits
