// Cross-session recall, index plan: the shared insight index oversampled, narrowed to the
// user and re-ranked by exact cosine; `matched` tells if oversampling sufficed.
CALL db.index.vector.queryNodes('insight_embedding', $candidates, $vector) YIELD node AS i
WHERE i.userId = $userId
WITH i, vector.similarity.cosine(i.embedding, $vector) AS score
ORDER BY score DESC, i.id
WITH collect({insight: i {.id, .threadId, .type, .content, .confidence, .extractor}, score: score}) AS ranked
RETURN size(ranked) AS matched, ranked[0..$limit] AS hits
