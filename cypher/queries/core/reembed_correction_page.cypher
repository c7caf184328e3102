// Corrections whose kept vector (of the agent text a person took away) was not made by the
// current embedder (resumable re-embedding); each keeps the text the vector came from.
MATCH (c:Correction)
WHERE c.embeddedText IS NOT NULL AND (c.embeddingModel IS NULL OR c.embeddingModel <> $model)
RETURN elementId(c) AS elementId, c.embeddedText AS text
LIMIT $limit
