// Insights whose embedding was not made by the current embedder (resumable re-embedding).
MATCH (i:Insight)
WHERE i.embeddingModel IS NULL OR i.embeddingModel <> $model
RETURN elementId(i) AS elementId, i.content AS text
LIMIT $limit
