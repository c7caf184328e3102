// Resolve a presented key to its principal (with its entity scope, if any); revoked keys
// resolve to nothing. `desk`: the key is a desk session's an earlier version minted (its label
// is exactly of the shape $deskLabel, a regular expression).
MATCH (k:ApiKey {hash: $hash})
WHERE k.revokedAt IS NULL
RETURN k.id AS id, k.userId AS userId, k.role AS role, k.agentId AS agentId,
  k.scopeIds AS scopeIds, k.scopeTags AS scopeTags, coalesce(k.label =~ $deskLabel, false) AS desk
