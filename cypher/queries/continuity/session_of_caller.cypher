// The session X-Session-ID names, if it is open and ran by $agentId (any of the user's
// agents when $agentId is null: a person's key): one lookup on the (userId, id) key.
MATCH (s:Session {userId: $userId, id: $id})
WHERE s.status = 'open' AND ($agentId IS NULL OR s.agentId = $agentId)
RETURN s.id AS id
