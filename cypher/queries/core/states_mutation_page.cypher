// A page of journal entries whose states hold a backslash-u escape (written with ASCII
// escapes, before graph/core/states.py), in (userId, id) order after the entry ($afterUser,
// $afterId), of users up to $lastUser: the rest of $afterUser's, then the next users', each
// read through the (userId, id) index in its order, so a page reads on from where the last
// one stopped and stops at $limit. The literal '\\u' is a backslash and a u.
CALL () {
  MATCH (m:Mutation)
  USING INDEX m:Mutation(userId, id)
  WHERE m.userId = $afterUser AND m.id > $afterId AND (m.before CONTAINS '\\u' OR m.after CONTAINS '\\u')
  RETURN m ORDER BY m.userId, m.id LIMIT $limit
  UNION ALL
  MATCH (m:Mutation)
  USING INDEX m:Mutation(userId, id)
  WHERE m.userId > $afterUser AND m.userId <= $lastUser AND m.id IS NOT NULL
    AND (m.before CONTAINS '\\u' OR m.after CONTAINS '\\u')
  RETURN m ORDER BY m.userId, m.id LIMIT $limit
}
WITH m ORDER BY m.userId, m.id LIMIT $limit
RETURN elementId(m) AS ref, m.userId AS userId, m.id AS id, {before: m.before, after: m.after} AS states
