// The hit notes and the edges among them, without expansion, in one query.
MATCH (h:Knowledge)
WHERE h.userId = $userId AND h.id IN $hitIds
WITH collect(h) AS hits
CALL () {
  RETURN [] AS reached
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
