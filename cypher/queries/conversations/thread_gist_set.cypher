// Store threads' gist vectors (graph/conversations/gists.py), each only where the thread
// still holds the messages it was computed from; the others are marked again.
UNWIND $rows AS row
MATCH (t:Thread {userId: $userId, id: row.id})
WHERE t.messageCount = row.seq
CALL db.create.setNodeVectorProperty(t, 'embedding', row.embedding)
SET t.embeddingModel = $model, t.embeddedSeq = row.seq
RETURN collect(t.id) AS stored
