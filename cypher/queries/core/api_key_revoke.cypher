// Revoke a key by id (idempotent: the first revocation time is kept); its rate windows go.
MATCH (k:ApiKey {id: $id})
SET k.revokedAt = coalesce(k.revokedAt, datetime())
WITH k
CALL (k) {
  MATCH (w:RateWindow)
  WHERE w.keyId = k.id AND w.window IS NOT NULL
  DELETE w
}
RETURN k {.id, .prefix, .userId, .role, .agentId, .label, .createdAt, .revokedAt} AS key
