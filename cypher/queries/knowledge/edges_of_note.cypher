// A note's edges in both directions.
MATCH (n:Knowledge {userId: $userId, id: $id})-[r]-(m:Knowledge)
WHERE m.userId = $userId AND type(r) IN $relTypes
RETURN {
  type: type(r), sourceId: startNode(r).id, targetId: endNode(r).id,
  createdAt: r.createdAt.epochMillis, source: r.source, confidence: r.confidence, note: r.note
} AS edge
ORDER BY r.createdAt, edge.sourceId, edge.targetId
