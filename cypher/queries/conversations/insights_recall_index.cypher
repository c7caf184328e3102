// Cross-session recall, index plan: the shared insight index oversampled and narrowed to
// the user (its full-precision scores are exact cosines); `matched` tells if it sufficed.
CALL db.index.vector.queryNodes('insight_embedding', $candidates, $vector) YIELD node AS i, score
WHERE i.userId = $userId
WITH i, score
ORDER BY score DESC, i.id
WITH collect({insight: i {.id, .threadId, .type, .content, .confidence, .extractor}, score: score}) AS ranked
RETURN size(ranked) AS matched, ranked[0..$limit] AS hits
