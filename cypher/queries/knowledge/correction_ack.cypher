// A session acknowledges a correction, saying what it did; once per session (the first
// acknowledgement is kept).
MATCH (c:Correction {userId: $userId, id: $id})
OPTIONAL MATCH (known:CorrectionAck {userId: $userId, correctionId: $id, sessionId: $sessionId})
CALL (c, known) {
  WITH c WHERE known IS NULL
  CREATE (a:CorrectionAck {
    userId: $userId, correctionId: $id, sessionId: $sessionId, actionTaken: $actionTaken,
    at: datetime()
  })-[:ACKNOWLEDGES]->(c)
}
RETURN known IS NULL AS created, c {
  .id, .kind, .status, .targetId, .fields, .mutationId, .before, .after, .reason,
  at: c.at.epochMillis,
  acks: [(a:CorrectionAck)-[:ACKNOWLEDGES]->(c) | a {.sessionId, .actionTaken, at: a.at.epochMillis}]
} AS correction
