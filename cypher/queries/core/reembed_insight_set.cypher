// Store re-computed insight embeddings; the element ids come from reembed_insight_page.
UNWIND $rows AS row
MATCH (i:Insight) WHERE elementId(i) = row.elementId
CALL db.create.setNodeVectorProperty(i, 'embedding', row.embedding)
SET i.embeddingModel = $model
