// Graph-aware retrieval to 2 hop(s), in one query: the hit notes, every note reached
// from them along the chosen edge types and direction (once, at its nearest depth, with
// the edges that reached it), and the edges among all of them.
// One file per depth: Cypher path bounds cannot be parameters.
MATCH (h:Knowledge)
WHERE h.userId = $userId AND h.id IN $hitIds
WITH collect(h) AS hits
CALL (hits) {
  UNWIND hits AS h
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
  RETURN collect({
    node: m,
    view: m {
    .id, .title, .content, .type, .source, .confidence, .status, .tags, .mergeCount,
    createdAt: m.createdAt.epochMillis, updatedAt: m.updatedAt.epochMillis,
    merges: [(m)-[:MERGED_FROM]->(mn:MergedNote) | mn {
      .requestedId, .title, .content, .type, .source, .confidence, .similarity,
      mergedAt: mn.mergedAt.epochMillis
    }]
  },
    depth: nearest.depth,
    via: [v IN nearest.vias | {
    type: type(v), sourceId: startNode(v).id, targetId: endNode(v).id,
    createdAt: v.createdAt.epochMillis, source: v.source, confidence: v.confidence, note: v.note
  }]
  }) AS reached
}
WITH hits, reached, hits + [x IN reached | x.node] AS everyone
CALL (everyone) {
  UNWIND everyone AS a
  MATCH (a)-[r]->(b:Knowledge)
  WHERE b IN everyone AND type(r) IN $relTypes
  RETURN collect(r) AS edges
}
RETURN
  [h IN hits | h {
    .id, .title, .content, .type, .source, .confidence, .status, .tags, .mergeCount,
    createdAt: h.createdAt.epochMillis, updatedAt: h.updatedAt.epochMillis,
    merges: [(h)-[:MERGED_FROM]->(mn:MergedNote) | mn {
      .requestedId, .title, .content, .type, .source, .confidence, .similarity,
      mergedAt: mn.mergedAt.epochMillis
    }]
  }] AS hits,
  [x IN reached | {node: x.view, depth: x.depth, via: x.via}] AS reached,
  [r IN edges | {
    type: type(r), sourceId: startNode(r).id, targetId: endNode(r).id,
    createdAt: r.createdAt.epochMillis, source: r.source, confidence: r.confidence, note: r.note
  }] AS edges
