// The supersedes edges between the user's notes that lie on a loop (A supersedes B ...
// supersedes A, which hides every note of it): the edges between notes that a chain of
// supersedes edges through the user's own notes leads back to. The service finds each
// loop among them and breaks it at its newest edge.
MATCH (a:Knowledge {userId: $userId})
WHERE EXISTS { (a)-[:SUPERSEDES]->(:Knowledge) } AND EXISTS { (:Knowledge)-[:SUPERSEDES]->(a) }
  AND EXISTS { (a) (()-[:SUPERSEDES]->(:Knowledge {userId: $userId}))+ (a) }
WITH collect(a) AS looping
UNWIND looping AS a
MATCH (a)-[r:SUPERSEDES]->(b:Knowledge)
WHERE b IN looping
RETURN elementId(r) AS element, {
  relType: type(r), sourceId: a.id, targetId: b.id, createdAt: r.createdAt.epochMillis,
  source: r.source, confidence: r.confidence, note: r.note, createdByRole: r.createdByRole,
  createdByAgent: r.createdByAgent
} AS edge
ORDER BY edge.sourceId, edge.targetId
