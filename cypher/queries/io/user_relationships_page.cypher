// One page of the relationships that start at a user's nodes of one kind and end at
// another of the user's nodes (never another user's, nor an API key, rate window, job or
// the Tenant node), in element id order after $after: type, both ends by their element
// ids (the refs of the nodes' pages), and properties as rows {key, type, value}.
CALL () {
  UNWIND CASE WHEN $kind = 'Knowledge' THEN [1] ELSE [] END AS _
  MATCH (n:Knowledge)-[r]->(m) WHERE n.userId = $userId RETURN n, r, m
  UNION ALL
  UNWIND CASE WHEN $kind = 'MergedNote' THEN [1] ELSE [] END AS _
  MATCH (n:MergedNote)-[r]->(m) WHERE n.userId = $userId RETURN n, r, m
  UNION ALL
  UNWIND CASE WHEN $kind = 'Thread' THEN [1] ELSE [] END AS _
  MATCH (n:Thread)-[r]->(m) WHERE n.userId = $userId AND n.id IS NOT NULL RETURN n, r, m
  UNION ALL
  UNWIND CASE WHEN $kind = 'Message' THEN [1] ELSE [] END AS _
  MATCH (n:Message)-[r]->(m) WHERE n.userId = $userId AND n.id IS NOT NULL RETURN n, r, m
  UNION ALL
  UNWIND CASE WHEN $kind = 'Insight' THEN [1] ELSE [] END AS _
  MATCH (n:Insight)-[r]->(m) WHERE n.userId = $userId AND n.key IS NOT NULL RETURN n, r, m
  UNION ALL
  UNWIND CASE WHEN $kind = 'Agent' THEN [1] ELSE [] END AS _
  MATCH (n:Agent)-[r]->(m) WHERE n.userId = $userId AND n.id IS NOT NULL RETURN n, r, m
  UNION ALL
  UNWIND CASE WHEN $kind = 'Session' THEN [1] ELSE [] END AS _
  MATCH (n:Session)-[r]->(m) WHERE n.userId = $userId AND n.id IS NOT NULL RETURN n, r, m
  UNION ALL
  UNWIND CASE WHEN $kind = 'PendingAction' THEN [1] ELSE [] END AS _
  MATCH (n:PendingAction)-[r]->(m) WHERE n.userId = $userId AND n.id IS NOT NULL RETURN n, r, m
  UNION ALL
  UNWIND CASE WHEN $kind = 'ToolCall' THEN [1] ELSE [] END AS _
  MATCH (n:ToolCall)-[r]->(m) WHERE n.userId = $userId AND n.sessionId IS NOT NULL AND n.position IS NOT NULL RETURN n, r, m
  UNION ALL
  UNWIND CASE WHEN $kind = 'Profile' THEN [1] ELSE [] END AS _
  MATCH (n:Profile)-[r]->(m) WHERE n.userId = $userId RETURN n, r, m
  UNION ALL
  UNWIND CASE WHEN $kind = 'Preference' THEN [1] ELSE [] END AS _
  MATCH (n:Preference)-[r]->(m) WHERE n.userId = $userId AND n.name IS NOT NULL RETURN n, r, m
  UNION ALL
  UNWIND CASE WHEN $kind = 'Goal' THEN [1] ELSE [] END AS _
  MATCH (n:Goal)-[r]->(m) WHERE n.userId = $userId AND n.id IS NOT NULL RETURN n, r, m
  UNION ALL
  UNWIND CASE WHEN $kind = 'Skill' THEN [1] ELSE [] END AS _
  MATCH (n:Skill)-[r]->(m) WHERE n.userId = $userId AND n.id IS NOT NULL RETURN n, r, m
  UNION ALL
  UNWIND CASE WHEN $kind = 'WikiPage' THEN [1] ELSE [] END AS _
  MATCH (n:WikiPage)-[r]->(m) WHERE n.userId = $userId AND n.slug IS NOT NULL RETURN n, r, m
  UNION ALL
  UNWIND CASE WHEN $kind = 'AgentDoc' THEN [1] ELSE [] END AS _
  MATCH (n:AgentDoc)-[r]->(m) WHERE n.userId = $userId AND n.agentId IS NOT NULL RETURN n, r, m
  UNION ALL
  UNWIND CASE WHEN $kind = 'Correction' THEN [1] ELSE [] END AS _
  MATCH (n:Correction)-[r]->(m) WHERE n.userId = $userId AND n.seq IS NOT NULL RETURN n, r, m
  UNION ALL
  UNWIND CASE WHEN $kind = 'CorrectionAck' THEN [1] ELSE [] END AS _
  MATCH (n:CorrectionAck)-[r]->(m) WHERE n.userId = $userId AND n.correctionId IS NOT NULL AND n.sessionId IS NOT NULL RETURN n, r, m
  UNION ALL
  UNWIND CASE WHEN $kind = 'Proposal' THEN [1] ELSE [] END AS _
  MATCH (n:Proposal)-[r]->(m) WHERE n.userId = $userId AND n.seq IS NOT NULL RETURN n, r, m
  UNION ALL
  UNWIND CASE WHEN $kind = 'Access' THEN [1] ELSE [] END AS _
  MATCH (n:Access)-[r]->(m) WHERE n.userId = $userId AND n.actor IS NOT NULL RETURN n, r, m
  UNION ALL
  UNWIND CASE WHEN $kind = 'Mutation' THEN [1] ELSE [] END AS _
  MATCH (n:Mutation)-[r]->(m) WHERE n.userId = $userId AND n.seq IS NOT NULL RETURN n, r, m
}
WITH n, r, m
WHERE m.userId = $userId AND NOT (m:ApiKey OR m:RateWindow OR m:Job OR m:Tenant) AND elementId(r) > $after
WITH n, r, m ORDER BY elementId(r) LIMIT $limit
RETURN elementId(r) AS ref, type(r) AS type, elementId(n) AS start, elementId(m) AS end,
  [k IN keys(r) | {key: k, type: valueType(r[k]),
                   value: CASE WHEN valueType(r[k]) IN $temporal THEN toString(r[k]) ELSE r[k] END}] AS properties
