// Forget a batch of threads ($ids) with their messages (and with them the thread's gist
// vector and its links to sessions and other threads): journal entries of the threads and
// of their messages scrubbed. Their insights are forgotten by forget_insights first.
CALL () {
  MATCH (t:Thread)
  WHERE t.userId = $userId AND t.id IN $ids
  OPTIONAL MATCH (t)-[:HAS_MESSAGE]->(msg:Message)
  WITH t, collect(msg.id) AS messages
  WITH [t.id] + messages AS targets
  UNWIND targets AS target
  MATCH (m:Mutation {userId: $userId, targetId: target})
  WHERE m.scrubbed IS NULL
  SET m.before = null, m.after = null, m.scrubbed = true, m.vector = null, m.vectorModel = null
  RETURN count(m) AS scrubbed
}
CALL () {
  MATCH (t:Thread)
  WHERE t.userId = $userId AND t.id IN $ids
  OPTIONAL MATCH (t)-[:HAS_MESSAGE]->(msg:Message)
  DETACH DELETE msg
  WITH DISTINCT t
  DETACH DELETE t
  RETURN count(*) AS deleted
}
RETURN deleted, scrubbed
