// Before an append: the thread's last message, and which of the given ids exist (and where).
MATCH (t:Thread {userId: $userId, id: $threadId})
OPTIONAL MATCH (t)-[:LAST_MESSAGE]->(last:Message)
CALL (t) {
  UNWIND $ids AS mid
  MATCH (m:Message {userId: $userId, id: mid})
  RETURN collect({id: m.id, threadId: m.threadId, role: m.role, content: m.content, data: m.data}) AS existing
}
RETURN last.id AS lastId, coalesce(last.seq, 0) AS lastSeq, existing
