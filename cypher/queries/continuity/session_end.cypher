// End an open session with its summary, and leave its pending actions open (one node each,
// readable in Browser: (:Session)-[:LEFT_OPEN]->(:PendingAction)). durationMinutes, when
// not given, is the time from start to end. $endedWith is the end request as given, so a
// repeat of the same end is recognised.
MATCH (s:Session)
WHERE s.userId = $userId AND s.id = $id AND s.status = 'open'
SET s.status = 'ended', s.endedAt = datetime(), s.summary = $summary, s.topics = $topics,
    s.keyDecisions = $keyDecisions, s.messageCount = $messageCount, s.endedWith = $endedWith,
    s.durationMinutes = coalesce(
      $durationMinutes, toInteger(round(duration.inSeconds(s.startedAt, datetime()).seconds / 60.0))
    )
WITH s
CALL (s) {
  UNWIND $pending AS action
  CREATE (p:PendingAction {
    userId: $userId, id: action.id, text: action.text, position: action.position, status: 'open',
    carriedCount: 0,
    sessionId: s.id, originSessionId: s.id, agentId: s.agentId, createdAt: datetime()
  })
  CREATE (s)-[:LEFT_OPEN]->(p)
}
RETURN s.id AS id
