// The conversations a new decision may affect, as the decision sees them
// (graph/project/notify.py decides which are told): each of the user's threads active within
// $windowSeconds, the $scan most recently active, exactly (only the user's own threads are
// read, so what other users store never changes the answer), with the plain cosines of its
// gist (topic and latest messages, graph/conversations/gists.py) to what the decision decides
// ($about) and to why ($why), and of the closest of its $insights newest insights (those with a
// vector; filtered after the limit, so the vectors of older insights are never loaded) to what it
// decides (the newest first, then by id: insights of one extraction share their time); the best
// cosine of its gist to any of the decision's $parts (the decision, and each consequence); and
// the threads that a session of one of the decision's own $agents is about. A thread without a
// gist vector has no cosines. Beside them, when a second model compares ($notifyModel, null: none),
// the same three comparisons of the thread's gist vector of that model (`notifyEmbedding`, made
// from the same text as `embedding`) with the decision's vectors of that model ($second: what it
// decides, why, then its parts): null for a thread without one, or with one another model made.
CALL () {
  MATCH (t:Thread)
  WHERE t.userId = $userId AND t.updatedAt >= datetime() - duration({seconds: $windowSeconds})
    AND t.id IS NOT NULL
  WITH t ORDER BY t.updatedAt DESC LIMIT $scan
  CALL (t) {
    MATCH (i:Insight) WHERE i.userId = $userId AND i.threadId = t.id
    WITH i ORDER BY i.extractedAt DESC, i.id DESC LIMIT $insights
    WITH i WHERE i.embedding IS NOT NULL
    RETURN max(2 * vector.similarity.cosine(i.embedding, $about) - 1) AS insightAbout
  }
  CALL (t) {
    UNWIND $parts AS part
    RETURN max(2 * vector.similarity.cosine(t.embedding, part) - 1) AS gistPart
  }
  CALL (t) {
    WITH t WHERE t.notifyModel = $notifyModel
    UNWIND range(0, size($second) - 1) AS k
    WITH k, 2 * vector.similarity.cosine(t.notifyEmbedding, $second[k]) - 1 AS cosine
    RETURN max(CASE k WHEN 0 THEN cosine END) AS gistAbout2, max(CASE k WHEN 1 THEN cosine END) AS gistWhy2,
           max(CASE WHEN k >= 2 THEN cosine END) AS gistPart2
  }
  RETURN t.id AS id,
         2 * vector.similarity.cosine(t.embedding, $about) - 1 AS gistAbout,
         2 * vector.similarity.cosine(t.embedding, $why) - 1 AS gistWhy,
         insightAbout, gistPart, gistAbout2, gistWhy2, gistPart2, false AS bySession
  UNION ALL
  UNWIND $agents AS agent
  MATCH (s:Session) WHERE s.userId = $userId AND s.agentId = agent AND s.startedAt IS NOT NULL
  MATCH (s)-[:ABOUT]->(t:Thread)
  WHERE t.updatedAt >= datetime() - duration({seconds: $windowSeconds})
  RETURN DISTINCT t.id AS id, null AS gistAbout, null AS gistWhy, null AS insightAbout,
         null AS gistPart, null AS gistAbout2, null AS gistWhy2, null AS gistPart2, true AS bySession
}
WITH id, max(gistAbout) AS gistAbout, max(gistWhy) AS gistWhy, max(insightAbout) AS insightAbout,
     max(gistPart) AS gistPart, max(gistAbout2) AS gistAbout2, max(gistWhy2) AS gistWhy2,
     max(gistPart2) AS gistPart2, max(bySession) AS bySession
// One list (db.listed): up to 500 threads, and a record costs the driver more than a map.
RETURN collect({id: id, gistAbout: gistAbout, gistWhy: gistWhy, insightAbout: insightAbout,
  gistPart: gistPart, gistAbout2: gistAbout2, gistWhy2: gistWhy2, gistPart2: gistPart2,
  bySession: bySession}) AS rows
