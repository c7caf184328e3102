// Store re-computed thread gists; the element ids come from reembed_thread_page. Only where
// the thread holds the messages the text was read from (an append meanwhile wins). The second
// model's vector of the old text is removed: reembed_thread_notify_set makes it again.
UNWIND $rows AS row
MATCH (t:Thread) WHERE elementId(t) = row.elementId AND t.messageCount = row.seq
CALL db.create.setNodeVectorProperty(t, 'embedding', row.embedding)
SET t.embeddingModel = $model, t.embeddedSeq = row.seq, t.notifyEmbedding = null, t.notifyModel = null
