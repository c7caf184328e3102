// Create typed edges between a user's notes (idempotent; conflictsWith is one edge either way).
// The relationship type is checked against the four allowed ones before it gets here. Valid
// time (validFrom, validUntil: epoch milliseconds) is absent when open. The edge is the
// writer's ($role, $agentId) unless its row names its maker (an undo bringing back a removed
// edge as it was: row.createdByRole, row.createdByAgent, row.confirmedByPerson).
UNWIND $rows AS row
MATCH (a:Knowledge {userId: $userId, id: row.sourceId})
MATCH (b:Knowledge {userId: $userId, id: row.targetId})
OPTIONAL MATCH (a)-[same:$(row.relType)]->(b)
OPTIONAL MATCH (b)-[rev:CONFLICTS_WITH]->(a) WHERE row.relType = 'CONFLICTS_WITH'
WITH a, b, row, rev, same IS NULL AND rev IS NULL AS created
CALL (a, b, row, rev) {
  WITH * WHERE rev IS NULL
  MERGE (a)-[r:$(row.relType)]->(b)
    ON CREATE SET r.createdAt = datetime(), r.source = row.source, r.confidence = row.confidence,
                  r.note = row.note, r.createdByRole = coalesce(row.createdByRole, $role),
                  r.createdByAgent = CASE WHEN row.createdByRole IS NULL THEN $agentId ELSE row.createdByAgent END,
                  r.confirmedByPerson = row.confirmedByPerson,
                  r.validFrom = row.validFrom, r.validUntil = row.validUntil
  RETURN r
  UNION
  WITH * WHERE rev IS NOT NULL
  RETURN rev AS r
}
FOREACH (_ IN CASE WHEN row.relType = 'SUPERSEDES' AND b.status = 'active' THEN [1] ELSE [] END |
  SET b.status = 'superseded', b.updatedAt = datetime()
)
RETURN row.index AS index, created, {
  type: type(r), sourceId: startNode(r).id, targetId: endNode(r).id,
  createdAt: r.createdAt.epochMillis, source: r.source, confidence: r.confidence, note: r.note, validFrom: r.validFrom, validUntil: r.validUntil
} AS edge
