// The conversations a new decision may affect, closest first: threads active within
// $windowSeconds whose gist (topic and latest messages, graph/conversations/gists.py) or one
// of whose insights is at least $minScore similar to the decision ($vector; Neo4j's
// normalised cosine), or that a session of one of the decision's own $agents is about. At
// most $limit. Gists and insights are each looked up through their shared vector index
// oversampled to the user ($threadCandidates, $insightCandidates), or,
// when that is null (a user with few of them, or a tiny share of the index), exactly over
// the user's own; each branch starts from an UNWIND of zero or one row, so only one runs.
CALL () {
  UNWIND CASE WHEN $threadCandidates IS NULL THEN [] ELSE [1] END AS _
  CALL db.index.vector.queryNodes('thread_topic_embedding', $threadCandidates, $vector) YIELD node, score
  WITH node AS t, score WHERE t.userId = $userId AND score >= $minScore
  RETURN t, score AS threadScore, null AS insightScore, false AS bySession
  UNION ALL
  UNWIND CASE WHEN $threadCandidates IS NULL THEN [1] ELSE [] END AS _
  MATCH (t:Thread) WHERE t.userId = $userId AND t.id IS NOT NULL AND t.embedding IS NOT NULL
  WITH t, vector.similarity.cosine(t.embedding, $vector) AS score WHERE score >= $minScore
  RETURN t, score AS threadScore, null AS insightScore, false AS bySession
  UNION ALL
  UNWIND CASE WHEN $insightCandidates IS NULL THEN [] ELSE [1] END AS _
  CALL db.index.vector.queryNodes('insight_embedding', $insightCandidates, $vector) YIELD node, score
  WITH node AS i, score WHERE i.userId = $userId AND score >= $minScore
  MATCH (t:Thread {userId: $userId, id: i.threadId})
  RETURN t, null AS threadScore, score AS insightScore, false AS bySession
  UNION ALL
  UNWIND CASE WHEN $insightCandidates IS NULL THEN [1] ELSE [] END AS _
  MATCH (i:Insight) WHERE i.userId = $userId AND i.embedding IS NOT NULL
  WITH i, vector.similarity.cosine(i.embedding, $vector) AS score WHERE score >= $minScore
  MATCH (t:Thread {userId: $userId, id: i.threadId})
  RETURN t, null AS threadScore, score AS insightScore, false AS bySession
  UNION ALL
  UNWIND $agents AS agent
  MATCH (s:Session) WHERE s.userId = $userId AND s.agentId = agent AND s.startedAt IS NOT NULL
  MATCH (s)-[:ABOUT]->(t:Thread)
  RETURN DISTINCT t, null AS threadScore, null AS insightScore, true AS bySession
}
WITH t, max(threadScore) AS threadScore, max(insightScore) AS insightScore, max(bySession) AS bySession
WHERE t.updatedAt >= datetime() - duration({seconds: $windowSeconds})
WITH t, threadScore, insightScore, bySession,
     CASE WHEN coalesce(threadScore, 0.0) > coalesce(insightScore, 0.0) THEN threadScore ELSE insightScore END AS best
ORDER BY bySession DESC, best DESC, t.id
LIMIT $limit
RETURN t.id AS id, threadScore, insightScore, bySession
