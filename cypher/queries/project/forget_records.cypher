// Forget a batch of one kind of record ($kind: goal, skill, pendingAction, toolCall (id
// "<session id>#<position>"), preference (by name), agentDoc; $ids their keys): their
// journal entries scrubbed, corrections and proposals about them removed, the records gone
// with their relationships (a goal's subgoals stay, without their parent). Safe to run again.
CALL () {
  MATCH (m:Mutation)
  WHERE m.userId = $userId AND m.targetId IN $ids AND m.scrubbed IS NULL
  SET m.before = null, m.after = null, m.scrubbed = true, m.vector = null, m.vectorModel = null
  RETURN count(m) AS scrubbed
}
CALL () {
  MATCH (c:Correction)
  WHERE c.userId = $userId AND c.targetId IN $ids
  OPTIONAL MATCH (a:CorrectionAck)-[:ACKNOWLEDGES]->(c)
  WITH c, collect(a) AS acks
  FOREACH (a IN acks | DETACH DELETE a)
  DETACH DELETE c
}
CALL () {
  MATCH (p:Proposal)
  WHERE p.userId = $userId AND p.seq IS NOT NULL AND p.targetId IN $ids
  DETACH DELETE p
}
CALL () {
  UNWIND $ids AS key
  CALL (key) {
    MATCH (n:Goal {userId: $userId, id: key}) WHERE $kind = 'goal'
    OPTIONAL MATCH (sub:Goal {userId: $userId, parentId: key})
    SET sub.parentId = null
    RETURN DISTINCT n
    UNION
    MATCH (n:Skill {userId: $userId, id: key}) WHERE $kind = 'skill'
    RETURN n
    UNION
    MATCH (n:PendingAction {userId: $userId, id: key}) WHERE $kind = 'pendingAction'
    RETURN n
    UNION
    WITH key, split(key, '#') AS parts WHERE $kind = 'toolCall'
    MATCH (n:ToolCall {userId: $userId, sessionId: parts[0], position: toInteger(parts[1])})
    RETURN n
    UNION
    MATCH (n:Preference {userId: $userId, name: key}) WHERE $kind = 'preference'
    RETURN n
    UNION
    MATCH (n:AgentDoc {userId: $userId, id: key}) WHERE $kind = 'agentDoc'
    RETURN n
  }
  DETACH DELETE n
  RETURN count(*) AS deleted
}
RETURN deleted, scrubbed
