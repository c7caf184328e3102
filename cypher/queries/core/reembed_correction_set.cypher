// Store re-computed correction vectors; the element ids come from reembed_correction_page.
UNWIND $rows AS row
MATCH (c:Correction) WHERE elementId(c) = row.elementId AND c.embeddedText = row.text
CALL db.create.setNodeVectorProperty(c, 'embedding', row.embedding)
SET c.embeddingModel = $model
