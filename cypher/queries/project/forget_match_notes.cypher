// The notes a forget's match reaches (graph/project/forget.py): every criterion given must
// hold ($ids, $tags: any of them, $source, created before $before / at or after $after, and
// $query: lower-cased text inside the title or content, or inside a merged twin's). Each
// with its title (the dry run's sample) and how many merge records and edges go with it.
MATCH (n:Knowledge)
WHERE n.userId = $userId
  AND ($ids IS NULL OR n.id IN $ids)
  AND ($tags IS NULL OR any(t IN coalesce(n.tags, []) WHERE t IN $tags))
  AND ($source IS NULL OR n.source = $source)
  AND ($before IS NULL OR n.createdAt < $before)
  AND ($after IS NULL OR n.createdAt >= $after)
  AND ($query IS NULL
       OR toLower(n.title) CONTAINS $query
       OR toLower(n.content) CONTAINS $query
       OR EXISTS {
         MATCH (n)-[:MERGED_FROM]->(m:MergedNote)
         WHERE toLower(coalesce(m.title, '')) CONTAINS $query OR toLower(coalesce(m.content, '')) CONTAINS $query
       })
WITH n.id AS id, n.title AS title, COUNT { (n)-[:MERGED_FROM]->(:MergedNote) } AS merges
ORDER BY id
// One row of lists: a driver decodes it several times faster than a row per note.
RETURN collect({id: id, title: title, merges: merges}) AS rows
