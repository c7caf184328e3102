// Carry an open pending action forward into an open session of the same user: it belongs to
// that session from now on ((:Session)-[:CARRIES]->(:PendingAction), replacing the last one)
// and to that session's agent, and counts how often it was carried. Where it came from
// stays (LEFT_OPEN, originSessionId).
MATCH (p:PendingAction)
WHERE p.userId = $userId AND p.id = $id AND p.status = 'open'
MATCH (s:Session)
WHERE s.userId = $userId AND s.id = $sessionId
OPTIONAL MATCH (:Session)-[old:CARRIES]->(p)
DELETE old
WITH DISTINCT p, s
CREATE (s)-[:CARRIES]->(p)
SET p.carriedCount = p.carriedCount + 1, p.sessionId = s.id, p.agentId = s.agentId,
    p.carriedAt = datetime()
RETURN p.id AS id
