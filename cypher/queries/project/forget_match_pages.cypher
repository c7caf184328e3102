// The wiki pages (saved sessions) a forget reaches: by slug ($ids), by $query inside the
// title, summary, decisions, learnings or open questions, saved before $before / at or
// after $after. The session itself stays.
MATCH (w:WikiPage)
WHERE w.userId = $userId AND w.slug IS NOT NULL
  AND ($ids IS NULL OR w.slug IN $ids)
  AND ($before IS NULL OR w.savedAt < $before)
  AND ($after IS NULL OR w.savedAt >= $after)
  AND ($query IS NULL OR any(x IN [w.title, w.summary] + coalesce(w.decisions, []) + coalesce(w.learnings, [])
       + coalesce(w.openQuestions, []) WHERE toLower(toString(x)) CONTAINS $query))
RETURN w.slug AS id, w.sessionId AS sessionId, w.title AS title
ORDER BY id
