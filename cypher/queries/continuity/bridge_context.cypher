// What the context bridge carries over for one agent and one user, in one read: the agent's
// last $recentSessions ended sessions with the user (newest first, read in index order:
// only as many as needed, however long the history), every open pending action that
// belongs to one of the agent's sessions (oldest first, at most $maxPending), and the
// user's profile when $includeProfile.
CALL () {
  OPTIONAL MATCH (s:Session)
  USING INDEX s:Session(userId, agentId, startedAt)
  WHERE s.userId = $userId AND s.agentId = $agentId AND s.startedAt IS NOT NULL AND s.status = 'ended'
  WITH s
  ORDER BY s.userId DESC, s.agentId DESC, s.startedAt DESC
  LIMIT $recentSessions
  RETURN collect(s {
    .id, .summary, .topics, .keyDecisions, .messageCount, .durationMinutes,
    startedAt: s.startedAt.epochMillis, endedAt: s.endedAt.epochMillis
  }) AS sessions
}
CALL () {
  OPTIONAL MATCH (p:PendingAction)
  WHERE p.userId = $userId AND p.status = 'open' AND p.agentId = $agentId
  WITH p
  ORDER BY p.createdAt, p.position, p.id
  LIMIT $maxPending
  RETURN collect(p {
    .id, .text, .status, .carriedCount, .resolution, .agentId, .sessionId, .originSessionId,
    createdAt: p.createdAt.epochMillis, resolvedAt: p.resolvedAt.epochMillis
  }) AS pending
}
CALL () {
  OPTIONAL MATCH (pr:Profile)
  WHERE $includeProfile AND pr.userId = $userId
  RETURN pr {
    .background, updatedAt: pr.updatedAt.epochMillis,
    preferences: [(pr)-[:PREFERS]->(f:Preference) | f {.name, .value, .insightId}]
  } AS profile
}
RETURN sessions, pending, profile
