// Archive these superseded architecture decisions of the user (those still superseded);
// returns the ids archived, for the journal (note.update of status).
UNWIND $ids AS id
MATCH (n:Knowledge:ProjectContext {userId: $userId, id: id, kind: 'decision'})
WHERE n.status = 'superseded'
SET n.status = 'archived', n.updatedAt = datetime()
RETURN n.id AS id
ORDER BY id
