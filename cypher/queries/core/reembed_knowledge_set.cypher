// Store re-computed embeddings; the element ids come from reembed_knowledge_page. A note
// whose text changed since the page was read (a PATCH meanwhile, with its own new vector)
// is left alone: a vector is only ever stored with the text it was computed from.
UNWIND $rows AS row
MATCH (n:Knowledge) WHERE elementId(n) = row.elementId AND n.title + '\n' + n.content = row.text
CALL db.create.setNodeVectorProperty(n, 'embedding', row.embedding)
SET n.embeddingModel = $model
