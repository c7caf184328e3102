// Everything orient needs from a user's memory, in one read (one round trip): counts and
// the last write, the notes most touched by the latest $hotWindow writes of the journal
// (inside the key's $scope), the active goal stack, the agent's last session, the
// corrections $sessionId has not acknowledged (within $windowSeconds), open pending
// actions, proposals waiting for a person, and the skills (without bodies). A key with an
// entity scope sees its own agent's work state only ($viewAgent) and notes in its scope: its
// count of notes is the scope's, and the whole user's writes and last write are not its
// to see (null).
CALL () {
  OPTIONAL MATCH (t:Tenant {userId: $userId})
  RETURN CASE WHEN $scope IS NULL THEN t.notes ELSE COUNT {
    MATCH (k:Knowledge)
    WHERE k.userId = $userId
      AND (k.id IN $scope.ids OR any(tag IN coalesce(k.tags, []) WHERE tag IN $scope.tags))
  } END AS notes, CASE WHEN $scope IS NULL THEN t.seq END AS writes
}
CALL () {
  // The newest write and the latest $hotWindow: read in the order of the (userId, seq)
  // index, newest first, never the whole journal.
  MATCH (m:Mutation)
  USING INDEX m:Mutation(userId, seq)
  WHERE $scope IS NULL AND m.userId = $userId AND m.seq IS NOT NULL
  WITH m ORDER BY m.userId DESC, m.seq DESC LIMIT 1
  RETURN collect(m.at.epochMillis)[0] AS lastWriteAt
}
CALL () {
  MATCH (m:Mutation)
  USING INDEX m:Mutation(userId, seq)
  WHERE m.userId = $userId AND m.seq IS NOT NULL
  WITH m ORDER BY m.userId DESC, m.seq DESC LIMIT $hotWindow
  MATCH (m)-[:CHANGED]->(k:Knowledge)
  WHERE ($scope IS NULL OR k.id IN $scope.ids OR any(t IN coalesce(k.tags, []) WHERE t IN $scope.tags))
    AND (k.validUntil IS NULL OR k.validUntil > $validAt)  // what has ended is not served as current
  WITH k, count(m) AS touches, max(m.at) AS lastAt
  ORDER BY touches DESC, lastAt DESC, k.id
  LIMIT $hotLimit
  RETURN collect(k {
    .id, .title, .type, .status, touches: touches, lastTouchedAt: lastAt.epochMillis
  }) AS hotEntities
}
CALL () {
  OPTIONAL MATCH (g:Goal)
  WHERE g.userId = $userId AND g.id IS NOT NULL AND g.status = 'active'
    AND ($viewAgent IS NULL OR g.createdByAgent = $viewAgent)
  WITH g ORDER BY g.createdAt DESC, g.id DESC
  WITH collect(g {.id, .title, .parentId, .status, createdAt: g.createdAt.epochMillis}) AS goals
  RETURN size(goals) AS activeGoals, goals[0..$goalLimit] AS goalStack
}
CALL () {
  // The agent's newest session in the order of its index; a caller of no agent, anyone's.
  CALL () {
    MATCH (s:Session)
    USING INDEX s:Session(userId, agentId, startedAt)
    WHERE $agentId IS NOT NULL AND s.userId = $userId AND s.agentId = $agentId AND s.startedAt IS NOT NULL
      AND s.id <> coalesce($sessionId, '')
    WITH s ORDER BY s.userId DESC, s.agentId DESC, s.startedAt DESC LIMIT 1
    RETURN collect(s)[0] AS mine
  }
  CALL () {
    MATCH (s:Session)
    USING INDEX s:Session(userId, startedAt)
    WHERE $agentId IS NULL AND s.userId = $userId AND s.startedAt IS NOT NULL
      AND s.id <> coalesce($sessionId, '')
    WITH s ORDER BY s.userId DESC, s.startedAt DESC LIMIT 1
    RETURN collect(s)[0] AS anyone
  }
  WITH coalesce(mine, anyone) AS s
  RETURN CASE WHEN s IS NULL THEN null ELSE s {
    .id, .agentId, .topic, .topics, .status, .summary,
    startedAt: s.startedAt.epochMillis, endedAt: s.endedAt.epochMillis,
    slug: [(s)-[:SAVED_AS]->(w:WikiPage) | w.slug][0]
  } END AS lastSession
}
CALL () {
  OPTIONAL MATCH (s:Session)
  WHERE s.userId = $userId AND s.startedAt IS NOT NULL AND ($viewAgent IS NULL OR s.agentId = $viewAgent)
  RETURN count(s) AS sessions
}
CALL () {
  OPTIONAL MATCH (c:Correction)
  WHERE c.userId = $userId AND c.seq IS NOT NULL AND c.status = 'active'
    AND c.at >= datetime() - duration({seconds: $windowSeconds})
    AND NOT EXISTS { (:CorrectionAck {sessionId: coalesce($sessionId, '')})-[:ACKNOWLEDGES]->(c) }
    AND ($scope IS NULL OR EXISTS {
      MATCH (k:Knowledge {userId: $userId, id: c.targetId})
      WHERE k.id IN $scope.ids OR any(t IN coalesce(k.tags, []) WHERE t IN $scope.tags)
    })
  WITH c ORDER BY c.seq DESC
  WITH collect(c {
    .id, .kind, .targetId, .fields, .mutationId, .reason, at: c.at.epochMillis
  }) AS corrections
  RETURN size(corrections) AS unacknowledged, corrections[0..$correctionLimit] AS lastCorrections
}
CALL () {
  MATCH (p:PendingAction)
  WHERE p.userId = $userId AND p.status = 'open' AND ($viewAgent IS NULL OR p.agentId = $viewAgent)
  WITH p ORDER BY p.createdAt, p.position, p.id
  WITH count(p) AS openActions, collect(p)[0..3] AS oldest
  RETURN openActions, [p IN oldest | p {.id, .text, .carriedCount, createdAt: p.createdAt.epochMillis}] AS oldestActions
}
CALL () {
  OPTIONAL MATCH (p:Proposal)
  WHERE p.userId = $userId AND p.seq IS NOT NULL AND p.status = 'pending'
    AND ($scope IS NULL OR all(id IN [split(p.targetId, ' ')[0], last(split(p.targetId, ' '))]
      WHERE id IN $scope.ids OR EXISTS {
        MATCH (k:Knowledge {userId: $userId, id: id}) WHERE any(t IN coalesce(k.tags, []) WHERE t IN $scope.tags)
      }))
  RETURN count(p) AS waitingProposals
}
CALL () {
  OPTIONAL MATCH (k:Skill)
  WHERE k.userId = $userId AND k.id IS NOT NULL
  WITH k ORDER BY k.id LIMIT 500
  RETURN collect(k {.id, .name, .bundle, .trigger, .tags, .invocationCount}) AS skills
}
RETURN notes, writes, lastWriteAt, hotEntities, activeGoals, goalStack, lastSession, sessions,
  unacknowledged, lastCorrections, openActions, oldestActions, waitingProposals, skills
