// Start a session of an agent with this user: the agent's node (one per user) runs it, and
// it follows the agent's newest session with the user (PREVIOUS), so an agent's sessions
// with a user form one chain. The newest is read in index order (one entry, however long
// the history). Runs under the user's write gate: two starts at once chain one after the
// other. $threadId, when given, is a thread of this user (checked before).
MERGE (a:Agent {userId: $userId, id: $agentId})
  ON CREATE SET a.createdAt = datetime()
WITH a
CALL () {
  OPTIONAL MATCH (last:Session)
  USING INDEX last:Session(userId, agentId, startedAt)
  WHERE last.userId = $userId AND last.agentId = $agentId AND last.startedAt IS NOT NULL
  WITH last
  ORDER BY last.userId DESC, last.agentId DESC, last.startedAt DESC
  LIMIT 1
  RETURN last
}
CREATE (s:Session {
  userId: $userId, id: $id, agentId: $agentId, topic: $topic, openingMessage: $openingMessage,
  threadId: $threadId, status: 'open', startedAt: datetime()
})
CREATE (a)-[:RAN]->(s)
WITH s, last
CALL (s, last) {
  WITH s, last WHERE last IS NOT NULL
  CREATE (s)-[:PREVIOUS]->(last)
}
CALL (s) {
  MATCH (t:Thread)
  WHERE t.userId = $userId AND t.id = $threadId
  CREATE (s)-[:ABOUT]->(t)
}
RETURN s.id AS id
