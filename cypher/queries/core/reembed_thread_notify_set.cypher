// Store the second model's vectors of threads' gists (reembed_thread_notify_page); only where
// the thread holds the messages the text was read from (an append meanwhile wins).
UNWIND $rows AS row
MATCH (t:Thread) WHERE elementId(t) = row.elementId AND t.messageCount = row.seq
CALL db.create.setNodeVectorProperty(t, 'notifyEmbedding', row.embedding)
SET t.notifyModel = $model
