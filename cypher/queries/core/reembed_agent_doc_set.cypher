// Store re-computed agent documentation embeddings; the element ids come from
// reembed_agent_doc_page. Only where the line is still the text the vector was computed from.
UNWIND $rows AS row
MATCH (d:AgentDoc) WHERE elementId(d) = row.elementId AND d.text = row.text
CALL db.create.setNodeVectorProperty(d, 'embedding', row.embedding)
SET d.embeddingModel = $model
