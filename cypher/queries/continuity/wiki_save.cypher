// Save a session as its wiki page (created at the first save, rewritten by the next), with
// the page's typed insights: each an Insight linked to the page it came from
// (EXTRACTED_FROM, HAS_INSIGHT), embedded for recall like an extracted one. Insights the
// new save no longer lists are removed; the ones it keeps keep their ids. $keepInsights (a
// scoped key's save): the page's insights are left as they are.
// The page is the session's own (keyed by sessionId); $slug names it at its first save only.
MATCH (s:Session {userId: $userId, id: $sessionId})
MERGE (w:WikiPage {userId: $userId, sessionId: s.id})
  ON CREATE SET w.createdAt = datetime(), w.slug = $slug, w.agentId = s.agentId
SET w.title = $title, w.summary = $summary, w.decisions = $decisions, w.learnings = $learnings,
    w.openQuestions = $openQuestions, w.savedWith = $fingerprint, w.savedAt = datetime(),
    w.savedByRole = $role, w.savedCount = coalesce(w.savedCount, 0) + 1,
    w.savedSeq = $seq, w.embeddingModel = $embeddingModel
MERGE (s)-[:SAVED_AS]->(w)
WITH w
CALL db.create.setNodeVectorProperty(w, 'embedding', $embedding)
CALL (w) {
  MATCH (w)-[:HAS_INSIGHT]->(old:Insight)
  WHERE NOT $keepInsights AND NOT old.key IN [row IN $insights | row.key]
  DETACH DELETE old
}
CALL (w) {
  UNWIND CASE WHEN $keepInsights THEN [] ELSE $insights END AS row
  MERGE (i:Insight {userId: $userId, key: row.key})
    ON CREATE SET i.id = row.id, i.sessionId = $sessionId, i.pageSlug = $slug, i.type = row.type,
                  i.content = row.content, i.confidence = row.confidence, i.extractor = 'session-save',
                  i.extractedAt = datetime(), i.embeddingModel = $embeddingModel, i.tenantKey = $tenantKey,
                  i.new = true
  SET i.position = row.position
  MERGE (i)-[:EXTRACTED_FROM]->(w)
  MERGE (w)-[:HAS_INSIGHT]->(i)
  WITH i, row, coalesce(i.new, false) AS created
  REMOVE i.new
  WITH i, row, created WHERE created
  CALL db.create.setNodeVectorProperty(i, 'embedding', row.embedding)
}
RETURN w.slug AS slug
