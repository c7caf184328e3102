// What the closest of a user's threads to a new decision say, for the named terms they share
// with it (graph/project/notify.py): each thread's gist text (its topic, then its latest three
// messages that are not system messages, newest first, each cut to 1,000 characters, as
// cypher/queries/conversations/thread_gist_text.cypher builds it) and its insights' contents.
UNWIND $ids AS threadId
MATCH (t:Thread {userId: $userId, id: threadId})
CALL (t) {
  MATCH (m:Message)
  WHERE m.userId = $userId AND m.threadId = t.id AND m.seq > t.messageCount - 20 AND m.role <> 'system'
  WITH m ORDER BY m.seq DESC LIMIT 3
  RETURN collect(left(m.content, 1000)) AS recent
}
CALL (t) {
  MATCH (i:Insight) WHERE i.userId = $userId AND i.threadId = t.id
  WITH i ORDER BY i.id LIMIT 20
  RETURN collect(left(i.content, 1000)) AS insights
}
RETURN t.id AS id, reduce(text = coalesce(t.topic, ''), line IN recent + insights | text + '\n' + line) AS text
