// Saved session pages whose embedding was not made by the current embedder (resumable
// re-embedding). The text is the page's title, summary, decisions and learnings, one a
// line, as graph/continuity/wiki.py's page_text embeds it.
MATCH (w:WikiPage)
WHERE w.embeddingModel IS NULL OR w.embeddingModel <> $model
RETURN elementId(w) AS elementId,
       reduce(text = w.title + '\n' + w.summary, line IN coalesce(w.decisions, []) + coalesce(w.learnings, []) |
         text + '\n' + line) AS text
LIMIT $limit
