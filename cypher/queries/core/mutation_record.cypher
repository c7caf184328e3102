// Journal one change of a user's memory, in the transaction that makes it: who (role,
// agent, key, the session it acted in), what (op, target), the state before and after
// (JSON text), and the write gate's sequence number, which orders the journal. Linked to
// its target when that still exists ((:Mutation)-[:CHANGED]->(target)), so Neo4j Browser
// shows a target's history. $targetType is one of the labels matched below.
CREATE (m:Mutation {
  userId: $userId, id: $id, seq: $seq, at: datetime(), role: $role, agentId: $agentId,
  keyId: $keyId, sessionId: $sessionId, op: $op, targetType: $targetType, targetId: $targetId,
  before: $before, after: $after
})
WITH m
CALL (m) {
  OPTIONAL MATCH (profile:Profile)
  WHERE $targetType = 'Profile' AND profile.userId = $userId
  OPTIONAL MATCH (session:Session)
  WHERE $targetType = 'Session' AND session.userId = $userId AND session.id = $targetId
  OPTIONAL MATCH (action:PendingAction)
  WHERE $targetType = 'PendingAction' AND action.userId = $userId AND action.id = $targetId
  WITH m, coalesce(profile, session, action) AS target
  WHERE target IS NOT NULL
  CREATE (m)-[:CHANGED]->(target)
}
RETURN m.id AS id
