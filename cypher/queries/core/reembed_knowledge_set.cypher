// Store re-computed embeddings; the element ids come from reembed_knowledge_page.
UNWIND $rows AS row
MATCH (n:Knowledge) WHERE elementId(n) = row.elementId
CALL db.create.setNodeVectorProperty(n, 'embedding', row.embedding)
SET n.embeddingModel = $model
