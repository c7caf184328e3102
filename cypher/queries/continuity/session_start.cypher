// Start a session of an agent with this user: the agent's node (one per user) runs it, and
// it follows the agent's newest session with the user (PREVIOUS), so an agent's sessions
// with a user form one chain. Runs under the user's write gate: two starts at once chain
// one after the other. $threadId, when given, is a thread of this user (checked before).
MERGE (a:Agent {userId: $userId, id: $agentId})
  ON CREATE SET a.createdAt = datetime()
WITH a
OPTIONAL MATCH (a)-[:RAN]->(last:Session)
WITH a, last
ORDER BY last.startedAt DESC, last.id DESC
LIMIT 1
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
