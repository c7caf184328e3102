// A page of one user's corrections whose states hold a backslash-u escape (as
// queries/core/states_mutation_page, for corrections' before and after).
MATCH (c:Correction)
USING INDEX c:Correction(userId, id)
WHERE c.userId = $userId AND c.id > $after AND (c.before CONTAINS '\\u' OR c.after CONTAINS '\\u')
RETURN elementId(c) AS ref, c.id AS id, {before: c.before, after: c.after} AS states
ORDER BY c.userId, c.id
LIMIT $limit
