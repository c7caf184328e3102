// The edges among a set of a user's notes, so a client can draw the subgraph.
MATCH (a:Knowledge)-[r]->(b:Knowledge)
WHERE a.userId = $userId AND a.id IN $ids AND b.userId = $userId AND b.id IN $ids
  AND type(r) IN $relTypes
RETURN {
  type: type(r), sourceId: a.id, targetId: b.id,
  createdAt: r.createdAt, source: r.source, confidence: r.confidence, note: r.note
} AS edge
