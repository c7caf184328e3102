// Threads whose gist was not embedded by the current embedder (resumable re-embedding;
// threads stored before gists existed get theirs). The text is the gist's, as
// cypher/queries/conversations/thread_gist_text.cypher builds it: the topic, then the
// latest three messages that are not system messages, newest first, each cut to 1,000
// characters. A thread with a blank topic and no messages has none.
MATCH (t:Thread)
WHERE t.embeddingModel IS NULL OR t.embeddingModel <> $model
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
