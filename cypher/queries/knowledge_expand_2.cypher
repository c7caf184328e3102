// Graph-aware retrieval: from the hit notes along the chosen edge types and direction,
// up to 2 hop(s), in one query. Each reached note once, with its depth and the edges
// that reached it at that depth. (One file per depth: Cypher bounds cannot be parameters.)
MATCH (h:Knowledge)
WHERE h.userId = $userId AND h.id IN $hitIds
MATCH p = (h)((a:Knowledge)-[r]-(b:Knowledge)
  WHERE type(r) IN $relTypes AND b.userId = $userId AND b.status IN $statuses
    AND ($direction = 'both'
         OR ($direction = 'out' AND startNode(r) = a)
         OR ($direction = 'in' AND endNode(r) = a))
){1,2}(m)
WHERE NOT m.id IN $hitIds
WITH m, length(p) AS depth, last(relationships(p)) AS via
WITH m, depth, collect(DISTINCT via) AS vias
ORDER BY depth
WITH m, head(collect({depth: depth, vias: vias})) AS nearest
RETURN m.id AS id, nearest.depth AS depth, [v IN nearest.vias | {
  type: type(v), sourceId: startNode(v).id, targetId: endNode(v).id,
  createdAt: v.createdAt, source: v.source, confidence: v.confidence, note: v.note
}] AS via
