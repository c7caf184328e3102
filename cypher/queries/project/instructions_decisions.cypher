// The active decisions an agent must respect (those naming it, or no agent), the newest
// first by their date, then by when they were recorded: how many there are ($total), and
// the newest $limit, each decision's text cut to $maxChars (`cut` says it was), with who
// recorded it (and, for one a person approved, the agent that proposed it). A decision whose
// validity ended by $validAt (invalidated, or stated to end) no longer shapes an agent.
MATCH (n:ProjectContext)
WHERE n.userId = $userId AND n.kind = 'decision' AND n.status = 'active'
  AND (n.validUntil IS NULL OR n.validUntil > $validAt)
  AND (size(n.agents) = 0 OR $agentId IN n.agents)
WITH n
ORDER BY n.decidedOn DESC, n.createdAt DESC, n.id
WITH collect(n) AS active
RETURN size(active) AS total, [n IN active[0..$limit] | {
  id: n.id, title: n.title, decision: left(n.content, $maxChars), cut: size(n.content) > $maxChars,
  date: n.decidedOn, createdByRole: n.createdByRole, createdByAgent: n.createdByAgent,
  proposedByRole: n.proposedByRole, proposedByAgent: n.proposedByAgent
}] AS decisions
