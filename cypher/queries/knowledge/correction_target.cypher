// The note a correction is about, and its tags now (none once the note is deleted): whether a
// key with an entity scope may acknowledge it; and whether $sessionId names a session (open or
// ended) of the user that $agentId ran (any agent's when $agentId is null: a person's key),
// the only sessions a caller acknowledges for.
MATCH (c:Correction {userId: $userId, id: $id})
OPTIONAL MATCH (k:Knowledge {userId: $userId, id: c.targetId})
RETURN c.targetId AS targetId, k.tags AS tags,
  EXISTS {
    MATCH (s:Session {userId: $userId, id: $sessionId})
    WHERE $agentId IS NULL OR s.agentId = $agentId
  } AS ownSession
