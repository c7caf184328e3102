// What a create compares a new note with: each stored candidate's text, and what a merge
// into it would change (confidence, tags, mergeCount). One list (db.listed).
MATCH (n:Knowledge)
WHERE n.userId = $userId AND n.id IN $ids
RETURN collect(n {.id, .title, .content, .confidence, .tags, .mergeCount}) AS rows
