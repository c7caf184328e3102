// How many nodes of each kind a user holds (graph/io/format.py's KINDS), and how many
// relationships of each type run between them: what an export's header states and what a
// restore must end with; a restore's target must hold none.
CALL () {
  MATCH (n:Knowledge) WHERE n.userId = $userId RETURN 'Knowledge' AS kind, count(n) AS nodes
  UNION ALL
  MATCH (n:MergedNote) WHERE n.userId = $userId RETURN 'MergedNote' AS kind, count(n) AS nodes
  UNION ALL
  MATCH (n:Thread) WHERE n.userId = $userId AND n.id IS NOT NULL RETURN 'Thread' AS kind, count(n) AS nodes
  UNION ALL
  MATCH (n:Message) WHERE n.userId = $userId AND n.id IS NOT NULL RETURN 'Message' AS kind, count(n) AS nodes
  UNION ALL
  MATCH (n:Insight) WHERE n.userId = $userId AND n.key IS NOT NULL RETURN 'Insight' AS kind, count(n) AS nodes
  UNION ALL
  MATCH (n:Agent) WHERE n.userId = $userId AND n.id IS NOT NULL RETURN 'Agent' AS kind, count(n) AS nodes
  UNION ALL
  MATCH (n:Session) WHERE n.userId = $userId AND n.id IS NOT NULL RETURN 'Session' AS kind, count(n) AS nodes
  UNION ALL
  MATCH (n:PendingAction) WHERE n.userId = $userId AND n.id IS NOT NULL RETURN 'PendingAction' AS kind, count(n) AS nodes
  UNION ALL
  MATCH (n:ToolCall) WHERE n.userId = $userId AND n.sessionId IS NOT NULL AND n.position IS NOT NULL RETURN 'ToolCall' AS kind, count(n) AS nodes
  UNION ALL
  MATCH (n:Profile) WHERE n.userId = $userId RETURN 'Profile' AS kind, count(n) AS nodes
  UNION ALL
  MATCH (n:Preference) WHERE n.userId = $userId AND n.name IS NOT NULL RETURN 'Preference' AS kind, count(n) AS nodes
  UNION ALL
  MATCH (n:Goal) WHERE n.userId = $userId AND n.id IS NOT NULL RETURN 'Goal' AS kind, count(n) AS nodes
  UNION ALL
  MATCH (n:Skill) WHERE n.userId = $userId AND n.id IS NOT NULL RETURN 'Skill' AS kind, count(n) AS nodes
  UNION ALL
  MATCH (n:WikiPage) WHERE n.userId = $userId AND n.slug IS NOT NULL RETURN 'WikiPage' AS kind, count(n) AS nodes
  UNION ALL
  MATCH (n:AgentDoc) WHERE n.userId = $userId AND n.agentId IS NOT NULL RETURN 'AgentDoc' AS kind, count(n) AS nodes
  UNION ALL
  MATCH (n:Correction) WHERE n.userId = $userId AND n.seq IS NOT NULL RETURN 'Correction' AS kind, count(n) AS nodes
  UNION ALL
  MATCH (n:CorrectionAck) WHERE n.userId = $userId AND n.correctionId IS NOT NULL AND n.sessionId IS NOT NULL RETURN 'CorrectionAck' AS kind, count(n) AS nodes
  UNION ALL
  MATCH (n:Proposal) WHERE n.userId = $userId AND n.seq IS NOT NULL RETURN 'Proposal' AS kind, count(n) AS nodes
  UNION ALL
  MATCH (n:Access) WHERE n.userId = $userId AND n.actor IS NOT NULL RETURN 'Access' AS kind, count(n) AS nodes
  UNION ALL
  MATCH (n:Mutation) WHERE n.userId = $userId AND n.seq IS NOT NULL RETURN 'Mutation' AS kind, count(n) AS nodes
}
WITH collect({kind: kind, nodes: nodes}) AS kinds
RETURN kinds, COLLECT {
  CALL () {
    MATCH (n:Knowledge) WHERE n.userId = $userId RETURN n
    UNION ALL
    MATCH (n:MergedNote) WHERE n.userId = $userId RETURN n
    UNION ALL
    MATCH (n:Thread) WHERE n.userId = $userId AND n.id IS NOT NULL RETURN n
    UNION ALL
    MATCH (n:Message) WHERE n.userId = $userId AND n.id IS NOT NULL RETURN n
    UNION ALL
    MATCH (n:Insight) WHERE n.userId = $userId AND n.key IS NOT NULL RETURN n
    UNION ALL
    MATCH (n:Agent) WHERE n.userId = $userId AND n.id IS NOT NULL RETURN n
    UNION ALL
    MATCH (n:Session) WHERE n.userId = $userId AND n.id IS NOT NULL RETURN n
    UNION ALL
    MATCH (n:PendingAction) WHERE n.userId = $userId AND n.id IS NOT NULL RETURN n
    UNION ALL
    MATCH (n:ToolCall) WHERE n.userId = $userId AND n.sessionId IS NOT NULL AND n.position IS NOT NULL RETURN n
    UNION ALL
    MATCH (n:Profile) WHERE n.userId = $userId RETURN n
    UNION ALL
    MATCH (n:Preference) WHERE n.userId = $userId AND n.name IS NOT NULL RETURN n
    UNION ALL
    MATCH (n:Goal) WHERE n.userId = $userId AND n.id IS NOT NULL RETURN n
    UNION ALL
    MATCH (n:Skill) WHERE n.userId = $userId AND n.id IS NOT NULL RETURN n
    UNION ALL
    MATCH (n:WikiPage) WHERE n.userId = $userId AND n.slug IS NOT NULL RETURN n
    UNION ALL
    MATCH (n:AgentDoc) WHERE n.userId = $userId AND n.agentId IS NOT NULL RETURN n
    UNION ALL
    MATCH (n:Correction) WHERE n.userId = $userId AND n.seq IS NOT NULL RETURN n
    UNION ALL
    MATCH (n:CorrectionAck) WHERE n.userId = $userId AND n.correctionId IS NOT NULL AND n.sessionId IS NOT NULL RETURN n
    UNION ALL
    MATCH (n:Proposal) WHERE n.userId = $userId AND n.seq IS NOT NULL RETURN n
    UNION ALL
    MATCH (n:Access) WHERE n.userId = $userId AND n.actor IS NOT NULL RETURN n
    UNION ALL
    MATCH (n:Mutation) WHERE n.userId = $userId AND n.seq IS NOT NULL RETURN n
  }
  MATCH (n)-[r]->(m)
  WHERE m.userId = $userId AND NOT (m:ApiKey OR m:RateWindow OR m:Job OR m:Tenant)
  WITH type(r) AS type, count(r) AS relationships
  RETURN {type: type, relationships: relationships}
} AS types
