// The notes a forget's match names by id ($ids, each found through the key), of those the
// other criteria given hold for, as forget_match_notes (which reads every note of the user).
UNWIND $ids AS id
MATCH (n:Knowledge {userId: $userId, id: id})
WHERE ($tags IS NULL OR any(t IN coalesce(n.tags, []) WHERE t IN $tags))
  AND ($source IS NULL OR n.source = $source)
  AND ($before IS NULL OR n.createdAt < $before)
  AND ($after IS NULL OR n.createdAt >= $after)
WITH n.id AS id, n.title AS title, COUNT { (n)-[:MERGED_FROM]->(:MergedNote) } AS merges
ORDER BY id
// One row of lists: a driver decodes it several times faster than a row per note.
RETURN collect({id: id, title: title, merges: merges}) AS rows
