// Journal one change of a user's memory, in the transaction that makes it: who (role,
// agent, key), what (op, target), the state before and after (JSON text), and the write
// gate's sequence number, which orders the journal. Linked to its target when that still
// exists ((:Mutation)-[:CHANGED]->(target)), so Neo4j Browser shows a target's history.
CREATE (m:Mutation {
  userId: $userId, id: $id, seq: $seq, at: datetime(), role: $role, agentId: $agentId,
  keyId: $keyId, op: $op, targetType: $targetType, targetId: $targetId,
  before: $before, after: $after
})
WITH m
CALL (m) {
  MATCH (t:Profile)
  WHERE $targetType = 'Profile' AND t.userId = $userId
  CREATE (m)-[:CHANGED]->(t)
}
RETURN m.id AS id
