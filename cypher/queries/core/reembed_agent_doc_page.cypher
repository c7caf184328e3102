// Agent documentation lines whose embedding was not made by the current embedder
// (resumable re-embedding).
MATCH (d:AgentDoc)
WHERE d.embeddingModel IS NULL OR d.embeddingModel <> $model
RETURN elementId(d) AS elementId, d.text AS text
LIMIT $limit
