// Start a session of an agent with this user: the agent's node (one per user) runs it, and
// it follows the agent's newest session with the user (PREVIOUS), so an agent's sessions
// with a user form one chain. The agent points at its newest session (LATEST), so neither
// a start nor the context bridge reads the whole history; an agent whose sessions predate
// the pointer has its newest found once by sorting them. Runs under the user's write gate:
// two starts at once chain one after the other. $threadId, when given, is a thread of
// this user (checked before).
MERGE (a:Agent {userId: $userId, id: $agentId})
  ON CREATE SET a.createdAt = datetime()
WITH a
OPTIONAL MATCH (a)-[latest:LATEST]->(pointed:Session)
CALL (a, pointed) {
  OPTIONAL MATCH (a)-[:RAN]->(ran:Session)
  WHERE pointed IS NULL
  WITH ran
  ORDER BY ran.startedAt DESC, ran.id DESC
  LIMIT 1
  RETURN ran AS sorted
}
WITH a, latest, coalesce(pointed, sorted) AS last
DELETE latest
CREATE (s:Session {
  userId: $userId, id: $id, agentId: $agentId, topic: $topic, openingMessage: $openingMessage,
  threadId: $threadId, status: 'open', startedAt: datetime()
})
CREATE (a)-[:RAN]->(s)
CREATE (a)-[:LATEST]->(s)
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
