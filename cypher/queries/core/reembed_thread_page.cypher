// Threads whose topic embedding was not made by the current embedder (resumable
// re-embedding; threads stored before topics were embedded get theirs). A blank topic has none.
MATCH (t:Thread)
WHERE trim(coalesce(t.topic, '')) <> '' AND (t.embeddingModel IS NULL OR t.embeddingModel <> $model)
RETURN elementId(t) AS elementId, t.topic AS text
LIMIT $limit
