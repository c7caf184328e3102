// A user's project context entries of one $kind (decision, pattern, constraint), the newest
// first by their date, then by when they were recorded; optionally of one $status, affecting
// one agent ($agentId: the entries naming it, or naming no agent: they affect every agent),
// with one $tag, or only $ids (then of any kind, to tell an id taken by another kind).
// $after (an entry's sort key) continues a page. One list (db.listed).
MATCH (n:ProjectContext)
WHERE n.userId = $userId
  AND (($ids IS NULL AND n.kind = $kind) OR n.id IN $ids)
  AND ($status IS NULL OR n.status = $status)
  AND ($agentId IS NULL OR size(n.agents) = 0 OR $agentId IN n.agents)
  AND ($tag IS NULL OR $tag IN n.tags)
WITH n, n.decidedOn + '|' + right('0000000000000' + toString(n.createdAt.epochMillis), 13) + '|' + n.id AS sortKey
WHERE $after IS NULL OR sortKey < $after
ORDER BY sortKey DESC
LIMIT $limit
RETURN collect({sortKey: sortKey, entry: n {
  .id, .kind, .title, .content, .status, .tags, .context, .consequences, .decidedOn, .agents,
  .source, .confidence, .createdByRole, .createdByAgent, .proposedByRole, .proposedByAgent,
  createdAt: n.createdAt.epochMillis, updatedAt: n.updatedAt.epochMillis,
  supersededBy: [(m:Knowledge)-[:SUPERSEDES]->(n) | m.id],
  supersedes: [(n)-[:SUPERSEDES]->(o:Knowledge) | o.id]
}}) AS rows
