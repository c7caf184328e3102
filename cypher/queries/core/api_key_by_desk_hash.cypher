// The key a desk session's secret was opened on, while the session holds ($now, epoch
// seconds) and the key is not revoked.
MATCH (k:ApiKey {deskHash: $hash})
WHERE k.revokedAt IS NULL AND k.deskUntil > $now
RETURN k.id AS id, k.userId AS userId, k.role AS role, k.agentId AS agentId,
  k.scopeIds AS scopeIds, k.scopeTags AS scopeTags, k.deskUntil AS until
