// Store re-computed thread topic embeddings; the element ids come from reembed_thread_page.
// Only where the topic is still the text the vector was computed from.
UNWIND $rows AS row
MATCH (t:Thread) WHERE elementId(t) = row.elementId AND t.topic = row.text
CALL db.create.setNodeVectorProperty(t, 'embedding', row.embedding)
SET t.embeddingModel = $model
