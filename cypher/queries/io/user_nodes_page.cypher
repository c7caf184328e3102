// One page of a user's nodes of one kind (graph/io/format.py's KINDS), in element id order
// after $after: each with its labels and its properties as rows {key, type, value} (a
// temporal value as its text). Each kind is read through an index that starts with userId
// (the forms of queries/core/user_forget_batch); the UNWIND before each MATCH keeps the
// other kinds' seeks from running at all.
CALL () {
  UNWIND CASE WHEN $kind = 'Knowledge' THEN [1] ELSE [] END AS _
  MATCH (n:Knowledge) WHERE n.userId = $userId RETURN n
  UNION ALL
  UNWIND CASE WHEN $kind = 'MergedNote' THEN [1] ELSE [] END AS _
  MATCH (n:MergedNote) WHERE n.userId = $userId RETURN n
  UNION ALL
  UNWIND CASE WHEN $kind = 'Thread' THEN [1] ELSE [] END AS _
  MATCH (n:Thread) WHERE n.userId = $userId AND n.id IS NOT NULL RETURN n
  UNION ALL
  UNWIND CASE WHEN $kind = 'Message' THEN [1] ELSE [] END AS _
  MATCH (n:Message) WHERE n.userId = $userId AND n.id IS NOT NULL RETURN n
  UNION ALL
  UNWIND CASE WHEN $kind = 'Insight' THEN [1] ELSE [] END AS _
  MATCH (n:Insight) WHERE n.userId = $userId AND n.key IS NOT NULL RETURN n
  UNION ALL
  UNWIND CASE WHEN $kind = 'Agent' THEN [1] ELSE [] END AS _
  MATCH (n:Agent) WHERE n.userId = $userId AND n.id IS NOT NULL RETURN n
  UNION ALL
  UNWIND CASE WHEN $kind = 'Session' THEN [1] ELSE [] END AS _
  MATCH (n:Session) WHERE n.userId = $userId AND n.id IS NOT NULL RETURN n
  UNION ALL
  UNWIND CASE WHEN $kind = 'PendingAction' THEN [1] ELSE [] END AS _
  MATCH (n:PendingAction) WHERE n.userId = $userId AND n.id IS NOT NULL RETURN n
  UNION ALL
  UNWIND CASE WHEN $kind = 'ToolCall' THEN [1] ELSE [] END AS _
  MATCH (n:ToolCall) WHERE n.userId = $userId AND n.sessionId IS NOT NULL AND n.position IS NOT NULL RETURN n
  UNION ALL
  UNWIND CASE WHEN $kind = 'Profile' THEN [1] ELSE [] END AS _
  MATCH (n:Profile) WHERE n.userId = $userId RETURN n
  UNION ALL
  UNWIND CASE WHEN $kind = 'Preference' THEN [1] ELSE [] END AS _
  MATCH (n:Preference) WHERE n.userId = $userId AND n.name IS NOT NULL RETURN n
  UNION ALL
  UNWIND CASE WHEN $kind = 'Goal' THEN [1] ELSE [] END AS _
  MATCH (n:Goal) WHERE n.userId = $userId AND n.id IS NOT NULL RETURN n
  UNION ALL
  UNWIND CASE WHEN $kind = 'Skill' THEN [1] ELSE [] END AS _
  MATCH (n:Skill) WHERE n.userId = $userId AND n.id IS NOT NULL RETURN n
  UNION ALL
  UNWIND CASE WHEN $kind = 'WikiPage' THEN [1] ELSE [] END AS _
  MATCH (n:WikiPage) WHERE n.userId = $userId AND n.slug IS NOT NULL RETURN n
  UNION ALL
  UNWIND CASE WHEN $kind = 'AgentDoc' THEN [1] ELSE [] END AS _
  MATCH (n:AgentDoc) WHERE n.userId = $userId AND n.agentId IS NOT NULL RETURN n
  UNION ALL
  UNWIND CASE WHEN $kind = 'Correction' THEN [1] ELSE [] END AS _
  MATCH (n:Correction) WHERE n.userId = $userId AND n.seq IS NOT NULL RETURN n
  UNION ALL
  UNWIND CASE WHEN $kind = 'CorrectionAck' THEN [1] ELSE [] END AS _
  MATCH (n:CorrectionAck) WHERE n.userId = $userId AND n.correctionId IS NOT NULL AND n.sessionId IS NOT NULL RETURN n
  UNION ALL
  UNWIND CASE WHEN $kind = 'Proposal' THEN [1] ELSE [] END AS _
  MATCH (n:Proposal) WHERE n.userId = $userId AND n.seq IS NOT NULL RETURN n
  UNION ALL
  UNWIND CASE WHEN $kind = 'Access' THEN [1] ELSE [] END AS _
  MATCH (n:Access) WHERE n.userId = $userId AND n.actor IS NOT NULL RETURN n
  UNION ALL
  UNWIND CASE WHEN $kind = 'Mutation' THEN [1] ELSE [] END AS _
  MATCH (n:Mutation) WHERE n.userId = $userId AND n.seq IS NOT NULL RETURN n
}
WITH n WHERE elementId(n) > $after
WITH n ORDER BY elementId(n) LIMIT $limit
RETURN elementId(n) AS ref, labels(n) AS labels,
  [k IN keys(n) | {key: k, type: valueType(n[k]),
                   value: CASE WHEN valueType(n[k]) IN $temporal THEN toString(n[k]) ELSE n[k] END}] AS properties
