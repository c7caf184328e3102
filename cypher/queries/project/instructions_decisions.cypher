// The active decisions an agent must respect (those naming it, or no agent), the newest
// first by their date, then by when they were recorded.
MATCH (n:ProjectContext)
WHERE n.userId = $userId AND n.kind = 'decision' AND n.status = 'active'
  AND (size(n.agents) = 0 OR $agentId IN n.agents)
RETURN n.id AS id, n.title AS title, n.content AS decision, n.decidedOn AS date
ORDER BY n.decidedOn DESC, n.createdAt DESC, n.id
