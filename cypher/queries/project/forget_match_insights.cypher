// The insights a forget reaches: matched directly when $direct (by $ids: with a query,
// those that hold it, forget_match_text; extracted before $before / at or after $after), and, whatever the match, those a
// forgotten note was drawn from (DERIVED_FROM), those of a forgotten thread and those of a
// forgotten wiki page.
MATCH (i:Insight)
WHERE i.userId = $userId AND i.key IS NOT NULL
  AND (
    ($direct
      AND ($ids IS NULL OR i.id IN $ids)
      AND ($before IS NULL OR i.extractedAt < $before)
      AND ($after IS NULL OR i.extractedAt >= $after))
    OR i.threadId IN $threadIds
    OR i.pageSlug IN $pageSlugs
    OR EXISTS { MATCH (k:Knowledge)-[:DERIVED_FROM]->(i) WHERE k.userId = $userId AND k.id IN $noteIds }
  )
WITH i.id AS id, i.type AS title
ORDER BY id
RETURN collect({id: id, title: title}) AS rows
