// Notes whose embedding was not made by the current embedder (resumable re-embedding).
MATCH (n:Knowledge)
WHERE n.embeddingModel IS NULL OR n.embeddingModel <> $model
RETURN elementId(n) AS elementId, n.title + '\n' + n.content AS text
LIMIT $limit
