// Forget a batch of wiki pages ($ids: slugs, or $sessionIds: their sessions', as a ledger
// names them) with their journal entries scrubbed: as a
// slug is made of the page's words, a scrubbed entry names the page by its session's id
// instead. Their insights are forgotten by forget_insights first; the sessions stay.
CALL () {
  MATCH (w:WikiPage)
  WHERE w.userId = $userId AND (w.slug IN $ids OR w.sessionId IN $sessionIds)
  MATCH (m:Mutation {userId: $userId, targetId: w.slug})
  WHERE m.scrubbed IS NULL
  SET m.before = null, m.after = null, m.scrubbed = true, m.targetId = w.sessionId
  RETURN count(m) AS scrubbed
}
CALL () {
  MATCH (w:WikiPage)
  WHERE w.userId = $userId AND (w.slug IN $ids OR w.sessionId IN $sessionIds)
  DETACH DELETE w
  RETURN count(*) AS deleted
}
RETURN deleted, scrubbed
