// Store re-computed insight embeddings; the element ids come from reembed_insight_page.
// Only where the content is still the text the vector was computed from.
UNWIND $rows AS row
MATCH (i:Insight) WHERE elementId(i) = row.elementId AND i.content = row.text
CALL db.create.setNodeVectorProperty(i, 'embedding', row.embedding)
SET i.embeddingModel = $model
