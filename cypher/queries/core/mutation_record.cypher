// Journal the changes of one write, in the transaction that makes it: who (role, agent,
// key, the session it acted in), what (op, target), the state before and after (JSON
// text), the write gate's sequence number and each change's part within the write, which
// order the journal. Each is linked to what it changed when that still exists
// ((:Mutation)-[:CHANGED]->(target); an edge's change to both its notes), so Neo4j Browser
// shows a thing's history. An undo is linked to the mutation it undoes (:UNDOES).
UNWIND $rows AS row
CREATE (m:Mutation {
  userId: $userId, id: row.id, seq: $seq, part: row.part, at: datetime(), role: $role,
  agentId: $agentId, keyId: $keyId, sessionId: $sessionId, op: row.op,
  targetType: row.targetType, targetId: row.targetId, before: row.before, after: row.after,
  undoes: row.undoes, proposalId: row.proposalId
})
WITH m, row
CALL (m, row) {
  WITH m, row
  WHERE row.targetType = 'Knowledge'
  MATCH (target:Knowledge {userId: $userId, id: row.targetId})
  CREATE (m)-[:CHANGED]->(target)
  UNION
  WITH m, row
  WHERE row.targetType = 'Edge'
  WITH m, split(row.targetId, ' ') AS ends
  MATCH (target:Knowledge {userId: $userId})
  WHERE target.id IN [ends[0], ends[2]]
  CREATE (m)-[:CHANGED]->(target)
  UNION
  WITH m, row
  WHERE row.targetType = 'Thread'
  MATCH (target:Thread {userId: $userId, id: row.targetId})
  CREATE (m)-[:CHANGED]->(target)
  UNION
  WITH m, row
  WHERE row.targetType = 'Message'
  MATCH (target:Message {userId: $userId, id: row.targetId})
  CREATE (m)-[:CHANGED]->(target)
  UNION
  WITH m, row
  WHERE row.targetType = 'Insight'
  MATCH (target:Insight {userId: $userId, id: row.targetId})
  CREATE (m)-[:CHANGED]->(target)
  UNION
  WITH m, row
  WHERE row.targetType = 'Profile'
  MATCH (target:Profile {userId: $userId})
  CREATE (m)-[:CHANGED]->(target)
  UNION
  WITH m, row
  WHERE row.targetType = 'Session'
  MATCH (target:Session {userId: $userId, id: row.targetId})
  CREATE (m)-[:CHANGED]->(target)
  UNION
  WITH m, row
  WHERE row.targetType = 'PendingAction'
  MATCH (target:PendingAction {userId: $userId, id: row.targetId})
  CREATE (m)-[:CHANGED]->(target)
  UNION
  WITH m, row
  WHERE row.undoes IS NOT NULL
  MATCH (undone:Mutation {userId: $userId, id: row.undoes})
  CREATE (m)-[:UNDOES]->(undone)
}
RETURN count(DISTINCT m) AS recorded
