// A page of corrections whose states hold a backslash-u escape (as
// queries/core/states_mutation_page, for corrections' before and after).
CALL () {
  MATCH (c:Correction)
  USING INDEX c:Correction(userId, id)
  WHERE c.userId = $afterUser AND c.id > $afterId AND (c.before CONTAINS '\\u' OR c.after CONTAINS '\\u')
  RETURN c ORDER BY c.userId, c.id LIMIT $limit
  UNION ALL
  MATCH (c:Correction)
  USING INDEX c:Correction(userId, id)
  WHERE c.userId > $afterUser AND c.userId <= $lastUser AND c.id IS NOT NULL
    AND (c.before CONTAINS '\\u' OR c.after CONTAINS '\\u')
  RETURN c ORDER BY c.userId, c.id LIMIT $limit
}
WITH c ORDER BY c.userId, c.id LIMIT $limit
RETURN elementId(c) AS ref, c.userId AS userId, c.id AS id, {before: c.before, after: c.after} AS states
