// Typed edges at the user's notes whose other end is not a note of the same user: a node
// without the Knowledge label or without a userId (`dangling`), or another user's note
// (`acrossUsers`). Neither should exist. The other end is named only when it is the user's
// own node; another user's ids are never returned. `otherIsNote`: whether that end counts
// as a superseder (queries/knowledge/notes_status counts Knowledge superseders).
MATCH (n:Knowledge {userId: $userId})-[r:RELATED_TO|DEPENDS_ON|SUPERSEDES|CONFLICTS_WITH]-(m)
WHERE NOT (m:Knowledge AND coalesce(m.userId = $userId, false))
RETURN elementId(r) AS element, n.id AS noteId, startNode(r) = n AS outgoing,
       CASE WHEN m:Knowledge AND m.userId IS NOT NULL THEN 'acrossUsers' ELSE 'dangling' END AS problem,
       CASE WHEN m.userId = $userId THEN m.id END AS otherId, m:Knowledge AS otherIsNote,
       {
         relType: type(r), createdAt: r.createdAt.epochMillis, source: r.source,
         confidence: r.confidence, note: r.note, createdByRole: r.createdByRole,
         createdByAgent: r.createdByAgent
       } AS edge
ORDER BY noteId, edge.relType, outgoing, element
