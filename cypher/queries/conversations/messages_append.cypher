// Append messages in order: each hangs off the thread and follows the previous one
// (NEXT), so Neo4j Browser shows the conversation as a chain; seq and the chain are
// computed by the caller inside the same gated transaction. `data` is the message's payload
// as compact JSON text (absent: none).
MATCH (t:Thread {userId: $userId, id: $threadId})
UNWIND $rows AS row
CREATE (m:Message {
  userId: $userId, id: row.id, threadId: $threadId, role: row.role, content: row.content,
  seq: row.seq, createdAt: coalesce(datetime(row.createdAt), datetime()), data: row.data
})
CREATE (t)-[:HAS_MESSAGE]->(m)
WITH t, m, row
OPTIONAL MATCH (previous:Message {userId: $userId, id: row.previousId})
FOREACH (_ IN CASE WHEN previous IS NULL THEN [] ELSE [1] END | CREATE (previous)-[:NEXT]->(m))
WITH t, collect(m) AS added
CALL (t) {
  MATCH (t)-[old:LAST_MESSAGE]->()
  DELETE old
}
WITH t, added, added[size(added) - 1] AS newest
CREATE (t)-[:LAST_MESSAGE]->(newest)
SET t.messageCount = t.messageCount + size(added), t.updatedAt = datetime()
RETURN size(added) AS appended
