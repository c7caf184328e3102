// Cross-session recall, exact plan: a user's insights most similar to the query, as one list
// (`hits`, as the index plan answers them).
MATCH (i:Insight)
WHERE i.userId = $userId
  // An insight whose fact has ended (the note drawn from it superseded, or its validity over by
  // $validAt) is not recalled: reads that feed an agent serve what is true now.
  AND NOT EXISTS {
    MATCH (k:Knowledge)-[:DERIVED_FROM]->(i) WHERE k.status = 'superseded' OR k.validUntil <= $validAt
  }
WITH i, vector.similarity.cosine(i.embedding, $vector) AS score
ORDER BY score DESC, i.id
LIMIT $limit
RETURN collect({insight: i {
  .id, .threadId, .sessionId, .pageSlug, .type, .content, .confidence, .extractor,
  extractedAt: i.extractedAt.epochMillis,
  messageId: [(i)-[:EXTRACTED_FROM]->(m:Message) | m.id][0],
  knowledgeIds: [(k:Knowledge)-[:DERIVED_FROM]->(i) | k.id]
}, score: score}) AS hits
