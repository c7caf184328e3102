// Earlier creates (by requested id) that were folded into an existing note: what they asked
// for, so a later create with that id is the same create (200) or a conflict (409), and
// the tags of the note it was folded into (a scoped key may not learn of one outside).
MATCH (k:Knowledge)-[:MERGED_FROM]->(m:MergedNote)
WHERE m.userId = $userId AND m.requestedId IN $ids AND k.userId = $userId
RETURN m.requestedId AS requestedId, k.id AS targetId, m.title AS title, m.content AS content,
       m.type AS type, m.data AS data, k.tags AS tags
