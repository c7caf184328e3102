// Cross-session recall, keyword half: the user's insights whose words match the query
// (Lucene, narrowed to the user by tenantKey), each with its cosine to the query too.
CALL db.index.fulltext.queryNodes('insight_fulltext', $lucene, {limit: $limit}) YIELD node AS i, score
WHERE i.userId = $userId
WITH i, score
ORDER BY score DESC, i.id
LIMIT $limit
RETURN i {
  .id, .threadId, .sessionId, .pageSlug, .type, .content, .confidence, .extractor,
  extractedAt: i.extractedAt.epochMillis,
  messageId: [(i)-[:EXTRACTED_FROM]->(m:Message) | m.id][0],
  knowledgeIds: [(k:Knowledge)-[:DERIVED_FROM]->(i) | k.id]
} AS insight, vector.similarity.cosine(i.embedding, $vector) AS score, score AS textScore
