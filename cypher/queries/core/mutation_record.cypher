// Journal the changes of one write, in the transaction that makes it: who (role, agent,
// key, the session it acted in), what (op, target), the state before and after (JSON
// text), the write gate's sequence number and each change's part within the write, which
// order the journal. Each is linked to what it changed when that still exists
// ((:Mutation)-[:CHANGED]->(target); an edge's change to both its notes), so Neo4j Browser
// shows a thing's history; an undo to the mutation it undoes (:UNDOES). A change that
// removes a vector keeps it (`vector`, `vectorModel`: a note's delete, for its undo). Each row names
// its target under the one key its kind uses (knowledgeIds, threadId, ...; null for the
// others), so every link is an index seek that finds nothing for the other kinds.
// A note keeps who wrote each of its fields last: `personFields` lists those a person
// wrote (row.written: the fields the change wrote); a note from before this was kept
// counts as its creator's.
UNWIND $rows AS row
CREATE (m:Mutation {
  userId: $userId, id: row.id, seq: $seq, part: row.part, at: datetime(), role: $role,
  agentId: $agentId, keyId: $keyId, sessionId: $sessionId, op: row.op,
  targetType: row.targetType, targetId: row.targetId, before: row.before, after: row.after,
  undoes: row.undoes, proposalId: row.proposalId
})
WITH m, row
CALL (m, row) {
  UNWIND row.knowledgeIds AS knowledgeId
  MATCH (target:Knowledge {userId: $userId, id: knowledgeId})
  CREATE (m)-[:CHANGED]->(target)
  WITH target
  WHERE row.targetType = 'Knowledge' AND size(row.written) > 0
  WITH target, coalesce(target.personFields, CASE WHEN target.createdByRole = 'human' THEN keys(target) ELSE [] END) AS was
  SET target.personFields = [f IN was WHERE NOT f IN row.written] + CASE WHEN $role = 'human' THEN row.written ELSE [] END
}
CALL (m, row) {
  MATCH (target:Thread {userId: $userId, id: row.threadId})
  CREATE (m)-[:CHANGED]->(target)
}
CALL (m, row) {
  MATCH (target:Message {userId: $userId, id: row.messageId})
  CREATE (m)-[:CHANGED]->(target)
}
CALL (m, row) {
  MATCH (target:Insight {userId: $userId, id: row.insightId})
  CREATE (m)-[:CHANGED]->(target)
}
CALL (m, row) {
  MATCH (target:Profile {userId: row.profileOf})
  CREATE (m)-[:CHANGED]->(target)
}
CALL (m, row) {
  MATCH (target:Session {userId: $userId, id: row.sessionOf})
  CREATE (m)-[:CHANGED]->(target)
}
CALL (m, row) {
  MATCH (target:PendingAction {userId: $userId, id: row.actionId})
  CREATE (m)-[:CHANGED]->(target)
}
CALL (m, row) {
  MATCH (target:Correction {userId: $userId, id: row.correctionId})
  CREATE (m)-[:CHANGED]->(target)
}
CALL (m, row) {
  MATCH (target:Proposal {userId: $userId, id: row.proposalOf})
  CREATE (m)-[:CHANGED]->(target)
}
CALL (m, row) {
  MATCH (target:Goal {userId: $userId, id: row.goalId})
  CREATE (m)-[:CHANGED]->(target)
}
CALL (m, row) {
  MATCH (target:Skill {userId: $userId, id: row.skillId})
  CREATE (m)-[:CHANGED]->(target)
}
CALL (m, row) {
  MATCH (target:WikiPage {userId: $userId, slug: row.pageSlug})
  CREATE (m)-[:CHANGED]->(target)
}
CALL (m, row) {
  WITH m WHERE row.vector IS NOT NULL
  CALL db.create.setNodeVectorProperty(m, 'vector', row.vector)
  SET m.vectorModel = row.vectorModel
}
CALL (m, row) {
  MATCH (undone:Mutation {userId: $userId, id: row.undoes})
  CREATE (m)-[:UNDOES]->(undone)
}
RETURN count(m) AS recorded
