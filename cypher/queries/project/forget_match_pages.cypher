// The wiki pages (saved sessions) a forget reaches: by slug ($ids: with a query, those that
// hold it, forget_match_text), saved before $before / at or after $after. The session
// itself stays.
MATCH (w:WikiPage)
WHERE w.userId = $userId AND w.slug IS NOT NULL
  AND ($ids IS NULL OR w.slug IN $ids)
  AND ($before IS NULL OR w.savedAt < $before)
  AND ($after IS NULL OR w.savedAt >= $after)
RETURN w.slug AS id, w.sessionId AS sessionId, w.title AS title
ORDER BY id
