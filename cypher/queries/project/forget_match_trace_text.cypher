// The traces of a user that may hold a forget's $query: journal entries (their before and
// after, JSON text, and the merge records a delete among them held), corrections (their
// states, the text they embedded, the person's reason) and proposals (their payload and the
// reason of their decision). JSON text is looked for by $jsonProbe (the query's longest
// stretch that JSON writes unescaped), other text by $query, each by the caseless
// expression of graph/core/folding.py, or when it holds a character that expression cannot
// fold ($rare); Python decides on the values. Each with what it is about and its time.
// Reads every trace of the user: only for a match with a query.
CALL () {
  MATCH (m:Mutation)
  WHERE m.userId = $userId AND m.seq IS NOT NULL AND m.scrubbed IS NULL
  RETURN 'journalEntry' AS kind, m.id AS id, m.targetId AS targetId, m.at AS at, m AS n,
         ['before', 'after'] AS json, [] AS plain
  UNION ALL
  MATCH (h:MergedNote {userId: $userId})
  WHERE h.heldBy IS NOT NULL
  MATCH (m:Mutation {userId: $userId, id: h.heldBy})
  WHERE m.scrubbed IS NULL
  RETURN 'journalEntry' AS kind, m.id AS id, m.targetId AS targetId, m.at AS at, h AS n,
         ['before', 'after'] AS json, ['title', 'content', 'data'] AS plain
  UNION ALL
  MATCH (c:Correction)
  WHERE c.userId = $userId AND c.seq IS NOT NULL
  RETURN 'correction' AS kind, c.id AS id, c.targetId AS targetId, c.at AS at, c AS n,
         ['before', 'after'] AS json, ['embeddedText', 'reason'] AS plain
  UNION ALL
  MATCH (p:Proposal)
  WHERE p.userId = $userId AND p.seq IS NOT NULL
  RETURN 'proposal' AS kind, p.id AS id, p.targetId AS targetId, p.createdAt AS at, p AS n,
         ['payload'] AS json, ['decisionReason'] AS plain
}
WITH kind, id, targetId, at, n,
     [k IN json WHERE n[k] IS :: STRING AND any(v IN [n[k]] WHERE
        normalize(replace(replace(replace(toLower(normalize(v, NFKC)), 'ß', 'ss'), 'ς', 'σ'), 'ͅ', 'ι'), NFKC) CONTAINS $jsonProbe
        OR (NOT v =~ $low AND v =~ $rare))] AS jsonHits,
     [k IN plain WHERE n[k] IS :: STRING AND any(v IN [n[k]] WHERE
        normalize(replace(replace(replace(toLower(normalize(v, NFKC)), 'ß', 'ss'), 'ς', 'σ'), 'ͅ', 'ι'), NFKC) CONTAINS $query
        OR (NOT v =~ $low AND v =~ $rare))] AS plainHits
WHERE size(jsonHits) + size(plainHits) > 0
RETURN collect({kind: kind, id: id, targetId: targetId, at: at,
                json: [k IN jsonHits | n[k]], plain: [k IN plainHits | n[k]]}) AS rows
