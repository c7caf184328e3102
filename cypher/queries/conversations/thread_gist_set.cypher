// Store threads' gist vectors (graph/conversations/gists.py), each only where the thread
// still holds the messages it was computed from; the others are marked again. Beside each, the
// second model's vector of the same text (`notifyEmbedding`, by $notifyModel), or none.
UNWIND $rows AS row
MATCH (t:Thread {userId: $userId, id: row.id})
WHERE t.messageCount = row.seq
CALL db.create.setNodeVectorProperty(t, 'embedding', row.embedding)
SET t.embeddingModel = $model, t.embeddedSeq = row.seq, t.notifyEmbedding = null, t.notifyModel = null
WITH t, row
CALL (t, row) {
  WITH t, row WHERE row.notifyEmbedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(t, 'notifyEmbedding', row.notifyEmbedding)
  SET t.notifyModel = $notifyModel
}
RETURN collect(t.id) AS stored
