// Store re-computed page embeddings; the element ids come from reembed_wiki_page_page. Only
// where the page still holds the text the vector was computed from (a save meanwhile wins).
UNWIND $rows AS row
MATCH (w:WikiPage) WHERE elementId(w) = row.elementId
  AND reduce(text = w.title + '\n' + w.summary, line IN coalesce(w.decisions, []) + coalesce(w.learnings, []) |
        text + '\n' + line) = row.text
CALL db.create.setNodeVectorProperty(w, 'embedding', row.embedding)
SET w.embeddingModel = $model
