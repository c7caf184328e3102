// The note a correction is about, and its tags now (none once the note is deleted): whether a
// key with an entity scope may acknowledge it.
MATCH (c:Correction {userId: $userId, id: $id})
OPTIONAL MATCH (k:Knowledge {userId: $userId, id: c.targetId})
RETURN c.targetId AS targetId, k.tags AS tags
