// One page of a user's nodes of one kind (graph/io/format.py's KINDS), after $after in the
// order of the kind's key: each with the key (the cursor), its labels and its properties as
// rows {key, type, value} (a temporal value as its text). A kind with a unique key per user
// (an id, a slug, a name) is read in the order of that key's index, as far as the page goes;
// the others (merge records, tool calls, the profile, agent docs, acknowledgements) by
// element id through an index that starts with userId. The guard before each MATCH keeps the
// other kinds' seeks from running at all.
CALL () {
  WITH 1 AS _ WHERE $kind = 'Knowledge'
  MATCH (n:Knowledge) WHERE n.userId = $userId AND n.id > $after
  WITH n ORDER BY n.userId, n.id LIMIT $limit
  RETURN n, n.id AS key
  UNION ALL
  WITH 1 AS _ WHERE $kind = 'MergedNote'
  MATCH (n:MergedNote) WHERE n.userId = $userId AND elementId(n) > $after
  WITH n ORDER BY elementId(n) LIMIT $limit
  RETURN n, elementId(n) AS key
  UNION ALL
  WITH 1 AS _ WHERE $kind = 'Thread'
  MATCH (n:Thread) WHERE n.userId = $userId AND n.id > $after
  WITH n ORDER BY n.userId, n.id LIMIT $limit
  RETURN n, n.id AS key
  UNION ALL
  WITH 1 AS _ WHERE $kind = 'Message'
  MATCH (n:Message) WHERE n.userId = $userId AND n.id > $after
  WITH n ORDER BY n.userId, n.id LIMIT $limit
  RETURN n, n.id AS key
  UNION ALL
  WITH 1 AS _ WHERE $kind = 'Insight'
  MATCH (n:Insight) WHERE n.userId = $userId AND n.key > $after
  WITH n ORDER BY n.userId, n.key LIMIT $limit
  RETURN n, n.key AS key
  UNION ALL
  WITH 1 AS _ WHERE $kind = 'Agent'
  MATCH (n:Agent) WHERE n.userId = $userId AND n.id > $after
  WITH n ORDER BY n.userId, n.id LIMIT $limit
  RETURN n, n.id AS key
  UNION ALL
  WITH 1 AS _ WHERE $kind = 'Session'
  MATCH (n:Session) WHERE n.userId = $userId AND n.id > $after
  WITH n ORDER BY n.userId, n.id LIMIT $limit
  RETURN n, n.id AS key
  UNION ALL
  WITH 1 AS _ WHERE $kind = 'PendingAction'
  MATCH (n:PendingAction) WHERE n.userId = $userId AND n.id > $after
  WITH n ORDER BY n.userId, n.id LIMIT $limit
  RETURN n, n.id AS key
  UNION ALL
  WITH 1 AS _ WHERE $kind = 'ToolCall'
  MATCH (n:ToolCall) WHERE n.userId = $userId AND n.sessionId IS NOT NULL AND n.position IS NOT NULL AND elementId(n) > $after
  WITH n ORDER BY elementId(n) LIMIT $limit
  RETURN n, elementId(n) AS key
  UNION ALL
  WITH 1 AS _ WHERE $kind = 'Profile'
  MATCH (n:Profile) WHERE n.userId = $userId AND elementId(n) > $after
  WITH n ORDER BY elementId(n) LIMIT $limit
  RETURN n, elementId(n) AS key
  UNION ALL
  WITH 1 AS _ WHERE $kind = 'Preference'
  MATCH (n:Preference) WHERE n.userId = $userId AND n.name > $after
  WITH n ORDER BY n.userId, n.name LIMIT $limit
  RETURN n, n.name AS key
  UNION ALL
  WITH 1 AS _ WHERE $kind = 'Goal'
  MATCH (n:Goal) WHERE n.userId = $userId AND n.id > $after
  WITH n ORDER BY n.userId, n.id LIMIT $limit
  RETURN n, n.id AS key
  UNION ALL
  WITH 1 AS _ WHERE $kind = 'Skill'
  MATCH (n:Skill) WHERE n.userId = $userId AND n.id > $after
  WITH n ORDER BY n.userId, n.id LIMIT $limit
  RETURN n, n.id AS key
  UNION ALL
  WITH 1 AS _ WHERE $kind = 'WikiPage'
  MATCH (n:WikiPage) WHERE n.userId = $userId AND n.slug > $after
  WITH n ORDER BY n.userId, n.slug LIMIT $limit
  RETURN n, n.slug AS key
  UNION ALL
  WITH 1 AS _ WHERE $kind = 'AgentDoc'
  MATCH (n:AgentDoc) WHERE n.userId = $userId AND n.agentId IS NOT NULL AND elementId(n) > $after
  WITH n ORDER BY elementId(n) LIMIT $limit
  RETURN n, elementId(n) AS key
  UNION ALL
  WITH 1 AS _ WHERE $kind = 'Correction'
  MATCH (n:Correction) WHERE n.userId = $userId AND n.id > $after
  WITH n ORDER BY n.userId, n.id LIMIT $limit
  RETURN n, n.id AS key
  UNION ALL
  WITH 1 AS _ WHERE $kind = 'CorrectionAck'
  MATCH (n:CorrectionAck) WHERE n.userId = $userId AND n.correctionId IS NOT NULL AND n.sessionId IS NOT NULL AND elementId(n) > $after
  WITH n ORDER BY elementId(n) LIMIT $limit
  RETURN n, elementId(n) AS key
  UNION ALL
  WITH 1 AS _ WHERE $kind = 'Proposal'
  MATCH (n:Proposal) WHERE n.userId = $userId AND n.id > $after
  WITH n ORDER BY n.userId, n.id LIMIT $limit
  RETURN n, n.id AS key
  UNION ALL
  WITH 1 AS _ WHERE $kind = 'Access'
  MATCH (n:Access) WHERE n.userId = $userId AND n.actor > $after
  WITH n ORDER BY n.userId, n.actor LIMIT $limit
  RETURN n, n.actor AS key
  UNION ALL
  WITH 1 AS _ WHERE $kind = 'Mutation'
  MATCH (n:Mutation) WHERE n.userId = $userId AND n.id > $after
  WITH n ORDER BY n.userId, n.id LIMIT $limit
  RETURN n, n.id AS key
}
RETURN key, elementId(n) AS ref, labels(n) AS labels,
  [k IN keys(n) | {key: k, type: valueType(n[k]),
                   value: CASE WHEN valueType(n[k]) IN $temporal THEN toString(n[k]) ELSE n[k] END}] AS properties
ORDER BY key
