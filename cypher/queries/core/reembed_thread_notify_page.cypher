// Threads whose gist has no vector of the second model that compares decisions with threads
// (graph/project/notify.py), or one another model made: the gist's text, as
// reembed_thread_page.cypher builds it.
MATCH (t:Thread)
WHERE t.notifyModel IS NULL OR t.notifyModel <> $model
CALL (t) {
  MATCH (m:Message)
  WHERE m.userId = t.userId AND m.threadId = t.id AND m.seq > t.messageCount - 20 AND m.role <> 'system'
  WITH m ORDER BY m.seq DESC LIMIT 3
  RETURN collect(left(m.content, 1000)) AS recent
}
WITH t, reduce(text = coalesce(t.topic, ''), line IN recent | text + '\n' + line) AS text
WHERE trim(text) <> ''
RETURN elementId(t) AS elementId, text, t.messageCount AS seq
LIMIT $limit
