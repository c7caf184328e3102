// A page of one user's journal entries whose states hold a backslash-u escape (written with
// ASCII escapes, before graph/core/states.py), in id order after $after, through the
// (userId, id) index in its order: a page reads the entries after the last one and stops
// at $limit. The literal '\\u' is a backslash and a u.
MATCH (m:Mutation)
USING INDEX m:Mutation(userId, id)
WHERE m.userId = $userId AND m.id > $after AND (m.before CONTAINS '\\u' OR m.after CONTAINS '\\u')
RETURN elementId(m) AS ref, m.id AS id, {before: m.before, after: m.after} AS states
ORDER BY m.userId, m.id
LIMIT $limit
