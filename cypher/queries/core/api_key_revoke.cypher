// Revoke a key by id (idempotent: the first revocation time is kept).
MATCH (k:ApiKey {id: $id})
SET k.revokedAt = coalesce(k.revokedAt, datetime())
RETURN k {.id, .prefix, .userId, .role, .agentId, .label, .createdAt, .revokedAt} AS key
