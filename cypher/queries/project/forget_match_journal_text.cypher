// The journal entries of a user whose before or after text holds $jsonQuery (a forget's
// query as JSON text writes it, lower-cased), or a delete whose held merge records hold
// $query, of whatever target, deleted before or not:
// every entry of the user is read, so this runs only for a match with a query.
MATCH (m:Mutation)
WHERE m.userId = $userId AND m.seq IS NOT NULL AND m.scrubbed IS NULL
  AND (toLower(coalesce(m.before, '')) CONTAINS $jsonQuery OR toLower(coalesce(m.after, '')) CONTAINS $jsonQuery
       OR (m.op = 'note.delete' AND EXISTS {
         MATCH (h:MergedNote {userId: $userId, heldBy: m.id})
         WHERE toLower(coalesce(h.title, '')) CONTAINS $query OR toLower(coalesce(h.content, '')) CONTAINS $query
       }))
RETURN collect({kind: 'journalEntry', id: m.id, targetId: m.targetId}) AS rows
