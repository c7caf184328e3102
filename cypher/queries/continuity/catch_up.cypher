// What changed in a user's memory since a cutoff, in one read: six sections (sessions,
// mutations, knowledge, work, wiki, approvals), each its count and its top $limit items.
//
// The cutoff resolves in tiers: an explicit $since wins; else this agent's newest saved
// session page (session_record); else the actor's last catch_up (last_access); else 24
// hours ago. Every time is the service's recording clock (when a change was written),
// never an event time a caller supplied. From a saved page, the journal is cut at the
// page's own write (its seq), so the save itself is not news; nor is what the calling
// session ($sessionId) did itself.
//
// Notes (and what is about notes: their mutations and proposals) are narrowed by $scope,
// the key's entity scope, and by $focus, the caller's; a note must pass both, so a caller
// can only narrow. Each is null (everything) or {ids, tags}: a note is in when its id is
// listed or it carries a listed tag. A scoped key sees its own agent's work state only
// ($viewAgent: its sessions, goals, pending actions and pages).
CALL () {
  MATCH (w:WikiPage)
  USING INDEX w:WikiPage(userId, agentId, savedAt)
  WHERE w.userId = $userId AND w.agentId = $agentId AND w.savedAt IS NOT NULL
  WITH w ORDER BY w.userId DESC, w.agentId DESC, w.savedAt DESC LIMIT 1
  RETURN collect(w)[0] AS lastPage
}
CALL () {
  OPTIONAL MATCH (a:Access {userId: $userId, actor: $actor})
  RETURN a.lastAccessAt AS lastAccess
}
WITH lastPage, lastAccess,
  CASE
    WHEN $since IS NOT NULL THEN 'explicit'
    WHEN lastPage IS NOT NULL THEN 'session_record'
    WHEN lastAccess IS NOT NULL THEN 'last_access'
    ELSE 'default_24h'
  END AS tier
WITH lastPage, lastAccess, tier,
  CASE tier
    WHEN 'explicit' THEN datetime($since)
    WHEN 'session_record' THEN lastPage.savedAt
    WHEN 'last_access' THEN lastAccess
    ELSE datetime() - duration('PT24H')
  END AS cutoff,
  CASE tier WHEN 'session_record' THEN lastPage.savedSeq ELSE null END AS cutoffSeq
CALL (lastPage) {
  CALL (lastPage) {
    MATCH (s:Session)
    USING INDEX s:Session(userId, agentId, startedAt)
    WHERE lastPage IS NULL AND s.userId = $userId AND s.agentId = $agentId AND s.startedAt IS NOT NULL
      AND s.id <> coalesce($sessionId, '')
    WITH s ORDER BY s.userId DESC, s.agentId DESC, s.startedAt DESC LIMIT 1
    RETURN collect(s)[0] AS s
  }
  RETURN CASE
    WHEN lastPage IS NOT NULL THEN {
      sessionId: lastPage.sessionId, slug: lastPage.slug, title: lastPage.title,
      summary: lastPage.summary, savedAt: lastPage.savedAt.epochMillis
    }
    WHEN s IS NOT NULL THEN {
      sessionId: s.id, topic: s.topic, status: s.status, summary: s.summary,
      startedAt: s.startedAt.epochMillis, endedAt: s.endedAt.epochMillis
    }
  END AS myLastSession
}
CALL (cutoff) {
  MATCH (s:Session)
  WHERE s.userId = $userId AND s.startedAt IS NOT NULL AND s.id <> coalesce($sessionId, '')
    AND coalesce(s.endedAt, s.startedAt) >= cutoff AND ($viewAgent IS NULL OR s.agentId = $viewAgent)
  WITH s ORDER BY coalesce(s.endedAt, s.startedAt) DESC, s.id DESC
  WITH collect(s) AS found
  RETURN {count: size(found), items: [s IN found[0..$limit] | s {
    .id, .agentId, .topic, .status, .summary, .topics,
    startedAt: s.startedAt.epochMillis, endedAt: s.endedAt.epochMillis
  }]} AS sessions
}
CALL (cutoff, cutoffSeq) {
  // Unnarrowed (the common case) the journal is read through its index alone; a scope makes
  // each mutation show its notes. Only one branch yields a row to start from (a WHERE on
  // the parameters would be planned after the index seek, which would run both).
  CALL (cutoff, cutoffSeq) {
    UNWIND CASE WHEN $scope IS NULL AND $focus IS NULL THEN [cutoff] ELSE [] END AS since
    MATCH (m:Mutation)
    WHERE m.userId = $userId AND m.at >= since AND (cutoffSeq IS NULL OR m.seq > cutoffSeq)
      AND ($sessionId IS NULL OR NOT $sessionId IN [coalesce(m.sessionId, ''), m.targetId])
    RETURN m
    UNION ALL
    UNWIND CASE WHEN $scope IS NULL AND $focus IS NULL THEN [] ELSE [cutoff] END AS since
    MATCH (m:Mutation)
    WHERE m.userId = $userId AND m.at >= since AND (cutoffSeq IS NULL OR m.seq > cutoffSeq)
      AND ($sessionId IS NULL OR NOT $sessionId IN [coalesce(m.sessionId, ''), m.targetId])
      AND EXISTS { (m)-[:CHANGED]->(:Knowledge) }
      AND NOT EXISTS {
        MATCH (m)-[:CHANGED]->(k:Knowledge)
        WHERE NOT (($scope IS NULL OR k.id IN $scope.ids OR any(t IN coalesce(k.tags, []) WHERE t IN $scope.tags))
               AND ($focus IS NULL OR k.id IN $focus.ids OR any(t IN coalesce(k.tags, []) WHERE t IN $focus.tags)))
      }
    RETURN m
  }
  WITH m ORDER BY m.seq DESC, m.part DESC
  WITH count(m) AS total, collect(m)[0..$limit] AS top
  RETURN {count: total, items: [m IN top | m {
    .id, .op, .targetType, .targetId, .role, .agentId, .sessionId, .seq, at: m.at.epochMillis
  }]} AS mutations
}
CALL (cutoff) {
  // New notes through the (userId, createdAt) index, updated ones through (userId,
  // updatedAt); the top items are the most recently changed.
  WITH cutoff,
    COUNT {
      MATCH (n:Knowledge)
      WHERE n.userId = $userId AND n.createdAt >= cutoff
        AND ($scope IS NULL OR n.id IN $scope.ids OR any(t IN coalesce(n.tags, []) WHERE t IN $scope.tags))
        AND ($focus IS NULL OR n.id IN $focus.ids OR any(t IN coalesce(n.tags, []) WHERE t IN $focus.tags))
    } AS newCount,
    COUNT {
      MATCH (n:Knowledge)
      USING INDEX n:Knowledge(userId, updatedAt)
      WHERE n.userId = $userId AND n.updatedAt >= cutoff AND n.createdAt < cutoff
        AND ($scope IS NULL OR n.id IN $scope.ids OR any(t IN coalesce(n.tags, []) WHERE t IN $scope.tags))
        AND ($focus IS NULL OR n.id IN $focus.ids OR any(t IN coalesce(n.tags, []) WHERE t IN $focus.tags))
    } AS updatedCount
  CALL (cutoff) {
    MATCH (n:Knowledge)
    WHERE n.userId = $userId AND n.updatedAt >= cutoff
      AND ($scope IS NULL OR n.id IN $scope.ids OR any(t IN coalesce(n.tags, []) WHERE t IN $scope.tags))
      AND ($focus IS NULL OR n.id IN $focus.ids OR any(t IN coalesce(n.tags, []) WHERE t IN $focus.tags))
    WITH n ORDER BY n.updatedAt DESC, n.id DESC LIMIT $limit
    RETURN collect(n {
      .id, .title, .type, .source, .confidence, .status, .tags,
      change: CASE WHEN n.createdAt >= cutoff THEN 'new' ELSE 'updated' END,
      createdAt: n.createdAt.epochMillis, updatedAt: n.updatedAt.epochMillis
    }) AS top
  }
  RETURN {count: newCount + updatedCount, newCount: newCount, updatedCount: updatedCount, items: top} AS knowledge
}
CALL (cutoff) {
  CALL () {
    MATCH (g:Goal)
    WHERE g.userId = $userId AND g.id IS NOT NULL AND ($viewAgent IS NULL OR g.createdByAgent = $viewAgent)
    RETURN g AS item, 'goal' AS kind, g.title AS text, coalesce(g.closedAt, g.createdAt) AS at
    UNION ALL
    MATCH (p:PendingAction)
    WHERE p.userId = $userId AND p.id IS NOT NULL AND ($viewAgent IS NULL OR p.agentId = $viewAgent)
    RETURN p AS item, 'pendingAction' AS kind, p.text AS text, coalesce(p.resolvedAt, p.createdAt) AS at
  }
  WITH item, kind, text, at WHERE at >= cutoff
  ORDER BY at DESC, item.id DESC
  WITH collect({item: item, kind: kind, text: text, at: at}) AS found
  RETURN {
    count: size(found),
    goals: size([x IN found WHERE x.kind = 'goal']),
    pendingActions: size([x IN found WHERE x.kind = 'pendingAction']),
    items: [x IN found[0..$limit] | {
      kind: x.kind, id: x.item.id, text: x.text, status: x.item.status, at: x.at.epochMillis
    }]
  } AS work
}
CALL (cutoff, lastPage, tier) {
  MATCH (w:WikiPage)
  WHERE w.userId = $userId AND w.savedAt >= cutoff AND ($viewAgent IS NULL OR w.agentId = $viewAgent)
    AND (tier <> 'session_record' OR w.slug <> lastPage.slug)
  WITH w ORDER BY w.savedAt DESC, w.slug DESC
  WITH collect(w) AS found
  RETURN {count: size(found), items: [w IN found[0..$limit] | w {
    .slug, .sessionId, .agentId, .title, savedAt: w.savedAt.epochMillis
  }]} AS wiki
}
CALL (cutoff) {
  MATCH (p:Proposal)
  WHERE p.userId = $userId AND p.seq IS NOT NULL AND p.status = 'pending'
    AND ($scope IS NULL AND $focus IS NULL OR all(id IN [split(p.targetId, ' ')[0], last(split(p.targetId, ' '))]
      WHERE EXISTS {
        MATCH (k:Knowledge {userId: $userId, id: id})
        WHERE ($scope IS NULL OR k.id IN $scope.ids OR any(t IN coalesce(k.tags, []) WHERE t IN $scope.tags))
          AND ($focus IS NULL OR k.id IN $focus.ids OR any(t IN coalesce(k.tags, []) WHERE t IN $focus.tags))
      }))
  WITH p ORDER BY p.seq DESC, p.id DESC
  WITH collect(p) AS waiting
  WITH waiting, [p IN waiting WHERE p.createdAt >= cutoff] AS fresh
  RETURN {count: size(fresh), waiting: size(waiting), items: [p IN fresh[0..$limit] | p {
    .id, .op, .targetId, .role, .agentId, .fields, createdAt: p.createdAt.epochMillis
  }]} AS approvals
}
RETURN cutoff.epochMillis AS cutoff, tier, lastAccess IS NOT NULL AS accessed,
  lastAccess IS NULL OR lastAccess < datetime() - duration('PT60S') AS accessStale,
  myLastSession, sessions, mutations, knowledge, work, wiki, approvals
