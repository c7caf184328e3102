// A user's pending actions, oldest first (in the order their session's end listed them),
// optionally only open or done ones and one agent's, each with the session it came from and
// the session it belongs to now (another, once carried forward); only those in $ids if given.
MATCH (p:PendingAction)
WHERE p.userId = $userId AND p.id IS NOT NULL AND ($ids IS NULL OR p.id IN $ids)
  AND ($status IS NULL OR p.status = $status)
  AND ($agentId IS NULL OR p.agentId = $agentId)
WITH p
ORDER BY p.createdAt, p.position, p.id
LIMIT $limit
RETURN p {
  .id, .text, .status, .carriedCount, .resolution, .agentId, .sessionId, .originSessionId,
  createdAt: p.createdAt.epochMillis, resolvedAt: p.resolvedAt.epochMillis
} AS action
