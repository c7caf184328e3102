// Discard an unfinished restore: delete up to $limit of what it wrote (the user held
// nothing when it began, and the gate refused every other write since, so every node of a
// kind an export holds is the restore's), with their relationships; repeat until none.
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
WITH n LIMIT $limit
DETACH DELETE n
RETURN count(*) AS deleted
