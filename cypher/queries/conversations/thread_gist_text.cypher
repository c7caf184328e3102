// The text of each thread's gist (graph/conversations/gists.py): its topic, then its latest
// three messages that are not system messages, newest first, each cut to 1,000 characters;
// `seq` is the thread's newest message then. The messages are read through the
// (userId, threadId, seq) index from the thread's end, never the whole conversation.
// cypher/queries/core/reembed_thread_page.cypher builds the same text.
UNWIND $ids AS threadId
MATCH (t:Thread {userId: $userId, id: threadId})
CALL (t) {
  MATCH (m:Message)
  WHERE m.userId = $userId AND m.threadId = t.id AND m.seq > t.messageCount - 20 AND m.role <> 'system'
  WITH m ORDER BY m.seq DESC LIMIT 3
  RETURN collect(left(m.content, 1000)) AS recent
}
RETURN t.id AS id, t.messageCount AS seq, reduce(text = t.topic, line IN recent | text + '\n' + line) AS text
