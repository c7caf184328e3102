// A page of one user's proposals whose payload holds a backslash-u escape (as
// queries/core/states_mutation_page, for proposals' payload).
MATCH (p:Proposal)
USING INDEX p:Proposal(userId, id)
WHERE p.userId = $userId AND p.id > $after AND p.payload CONTAINS '\\u'
RETURN elementId(p) AS ref, p.id AS id, {payload: p.payload} AS states
ORDER BY p.userId, p.id
LIMIT $limit
