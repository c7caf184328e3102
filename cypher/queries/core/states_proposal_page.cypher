// A page of proposals whose payload holds a backslash-u escape (as
// queries/core/states_mutation_page, for proposals' payload).
CALL () {
  MATCH (p:Proposal)
  USING INDEX p:Proposal(userId, id)
  WHERE p.userId = $afterUser AND p.id > $afterId AND p.payload CONTAINS '\\u'
  RETURN p ORDER BY p.userId, p.id LIMIT $limit
  UNION ALL
  MATCH (p:Proposal)
  USING INDEX p:Proposal(userId, id)
  WHERE p.userId > $afterUser AND p.userId <= $lastUser AND p.id IS NOT NULL AND p.payload CONTAINS '\\u'
  RETURN p ORDER BY p.userId, p.id LIMIT $limit
}
WITH p ORDER BY p.userId, p.id LIMIT $limit
RETURN elementId(p) AS ref, p.userId AS userId, p.id AS id, {payload: p.payload} AS states
