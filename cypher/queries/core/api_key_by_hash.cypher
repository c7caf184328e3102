// Resolve a presented key to its principal; revoked keys resolve to nothing.
MATCH (k:ApiKey {hash: $hash})
WHERE k.revokedAt IS NULL
RETURN k.id AS id, k.userId AS userId, k.role AS role, k.agentId AS agentId
