// Cross-session recall, keyword half: the user's insights whose words match the query, each
// with its cosine to the query too. Scored from the user's own insights alone, as search
// scores notes (queries/knowledge/search_0 tells how): each query word ($terms, one Lucene
// query per word narrowed to the user's tenantKey) finds at most $termLimit of the user's
// insights, whose number among the user's $insights gives the word's idf; a word that
// fills $termLimit is left out while a rarer one is present; an insight weighs the idf of
// each word it holds, normalised by its length against the mean of the best $candidates.
UNWIND $terms AS term
CALL (term) {
  CALL db.index.fulltext.queryNodes('insight_fulltext', term, {limit: $termLimit}) YIELD node
  RETURN collect(node) AS matches
}
WITH collect(DISTINCT matches) AS lists
WITH CASE WHEN any(m IN lists WHERE size(m) < $termLimit)
  THEN [m IN lists WHERE size(m) < $termLimit] ELSE lists END AS used
UNWIND used AS matches
WITH matches, log(1.0 + ($insights - size(matches) + 0.5) / (size(matches) + 0.5)) AS idf
UNWIND matches AS i
WITH i, sum(idf) AS weight
WHERE i.userId = $userId
  // An insight whose fact has ended (the note drawn from it superseded, or its validity over by
  // $validAt) is not recalled: reads that feed an agent serve what is true now.
  AND NOT EXISTS {
    MATCH (k:Knowledge)-[:DERIVED_FROM]->(i) WHERE k.status = 'superseded' OR k.validUntil <= $validAt
  }
WITH i, weight ORDER BY weight DESC, i.id LIMIT $candidates
WITH collect({i: i, weight: weight, length: size(split(i.content, ' '))}) AS top
WITH top, reduce(total = 0.0, t IN top | total + t.length) / CASE size(top) WHEN 0 THEN 1 ELSE size(top) END AS mean
UNWIND top AS t
WITH t.i AS i, t.weight * 2.2 / (1.0 + 1.2 * (0.25 + 0.75 * t.length / mean)) AS textScore
ORDER BY textScore DESC, i.id
LIMIT $limit
RETURN collect({insight: i {
  .id, .threadId, .sessionId, .pageSlug, .type, .content, .confidence, .extractor,
  extractedAt: i.extractedAt.epochMillis,
  messageId: [(i)-[:EXTRACTED_FROM]->(m:Message) | m.id][0],
  knowledgeIds: [(k:Knowledge)-[:DERIVED_FROM]->(i) | k.id]
}, score: vector.similarity.cosine(i.embedding, $vector), textScore: textScore}) AS hits
