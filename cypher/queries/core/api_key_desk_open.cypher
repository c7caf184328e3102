// A desk session on a person's own key: the sha256 of its secret and until when it holds
// (epoch seconds). A key holds one session: a new sign-in replaces the one before. Nothing
// when the key is revoked (or gone).
MATCH (k:ApiKey {id: $id})
WHERE k.revokedAt IS NULL
SET k.deskHash = $hash, k.deskUntil = $until
RETURN k {.id, .prefix, .userId, .role, .agentId, .label, .scopeIds, .scopeTags, .createdAt, .revokedAt} AS key
