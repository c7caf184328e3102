// A user's goal stack: active goals first, the newest (the top of the stack) first, then
// closed ones, the most recently closed first; optionally of one status, set by one agent
// ($agentId: what a scoped key sees), or only $ids.
// ($afterRank, $afterAt, $afterId) continues a page.
MATCH (g:Goal)
WHERE g.userId = $userId AND g.id IS NOT NULL
  AND ($ids IS NULL OR g.id IN $ids)
  AND ($status IS NULL OR g.status = $status)
  AND ($agentId IS NULL OR g.createdByAgent = $agentId)
WITH g, CASE g.status WHEN 'active' THEN 0 ELSE 1 END AS rank, coalesce(g.closedAt, g.createdAt) AS at
WHERE $afterRank IS NULL OR rank > $afterRank
   OR (rank = $afterRank AND (at < datetime($afterAt) OR (at = datetime($afterAt) AND g.id > $afterId)))
ORDER BY rank, at DESC, g.id
LIMIT $limit
RETURN rank, toString(at) AS position, g {
  .id, .title, .status, .parentId, .outcome, .sessionId, .createdByRole, .createdByAgent,
  .closedByRole, .closedByAgent, createdAt: g.createdAt.epochMillis, closedAt: g.closedAt.epochMillis
} AS goal
