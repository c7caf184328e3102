// The notes a forget's match reaches (graph/project/forget.py): every criterion given must
// hold ($tags: any of them, $source, created before $before / at or after $after; a query is
// forget_match_text's, whose notes come here by id: forget_match_notes_by_id). Each
// with its title (the dry run's sample) and how many merge records and edges go with it.
MATCH (n:Knowledge)
WHERE n.userId = $userId
  AND ($tags IS NULL OR any(t IN coalesce(n.tags, []) WHERE t IN $tags))
  AND ($source IS NULL OR n.source = $source)
  AND ($before IS NULL OR n.createdAt < $before)
  AND ($after IS NULL OR n.createdAt >= $after)
WITH n.id AS id, n.title AS title, COUNT { (n)-[:MERGED_FROM]->(:MergedNote) } AS merges
ORDER BY id
// One row of lists: a driver decodes it several times faster than a row per note.
RETURN collect({id: id, title: title, merges: merges}) AS rows
