// Sessions of one user by id, as the API shows them, with the actions each left open.
MATCH (s:Session)
WHERE s.userId = $userId AND s.id IN $ids
RETURN s {
  .id, .agentId, .topic, .openingMessage, .threadId, .status, .summary, .topics, .keyDecisions,
  .messageCount, .durationMinutes, .endedWith,
  startedAt: s.startedAt.epochMillis, endedAt: s.endedAt.epochMillis,
  previousId: [(s)-[:PREVIOUS]->(p:Session) | p.id][0],
  pendingActions: [(s)-[:LEFT_OPEN]->(a:PendingAction) | a {
    .id, .text, .status, .carriedCount, .resolution, .agentId, .sessionId, .originSessionId, .position,
    createdAt: a.createdAt.epochMillis, resolvedAt: a.resolvedAt.epochMillis
  }]
} AS session
