// Keys, optionally of one user; revoked ones only when asked for.
MATCH (k:ApiKey)
WHERE ($userId IS NULL OR k.userId = $userId)
  AND ($includeRevoked OR k.revokedAt IS NULL)
RETURN k {.id, .prefix, .userId, .role, .agentId, .label, .scopeIds, .scopeTags, .createdAt, .revokedAt} AS key
ORDER BY k.createdAt, k.id
