// A user's pending actions, oldest first (in the order their session's end listed them),
// optionally only open or done ones and one agent's, each with the session it came from and
// the session it belongs to now (another, once carried forward); only those in $ids if given.
// ($afterAt, $afterPosition, $afterId) continues a page.
MATCH (p:PendingAction)
WHERE p.userId = $userId AND p.id IS NOT NULL AND ($ids IS NULL OR p.id IN $ids)
  AND ($status IS NULL OR p.status = $status)
  AND ($agentId IS NULL OR p.agentId = $agentId)
WITH p, coalesce(p.position, 0) AS position
WHERE $afterAt IS NULL OR p.createdAt > datetime($afterAt)
   OR (p.createdAt = datetime($afterAt) AND (position > $afterPosition
       OR (position = $afterPosition AND p.id > $afterId)))
ORDER BY p.createdAt, position, p.id
LIMIT $limit
RETURN toString(p.createdAt) AS at, position, p {
  .id, .text, .status, .carriedCount, .resolution, .agentId, .sessionId, .originSessionId,
  createdAt: p.createdAt.epochMillis, resolvedAt: p.resolvedAt.epochMillis
} AS action
