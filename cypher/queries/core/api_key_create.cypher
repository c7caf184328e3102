// A new API key; only the sha256 of its secret is stored. Making a key for a user who was
// forgotten lifts the tombstone: their id starts again from nothing.
CREATE (k:ApiKey {
  id: $id, hash: $hash, prefix: $prefix,
  userId: $userId, role: $role, agentId: $agentId, label: $label,
  scopeIds: $scopeIds, scopeTags: $scopeTags,
  createdAt: datetime()
})
WITH k
OPTIONAL MATCH (t:Tenant {userId: $userId})
REMOVE t.forgottenAt
RETURN k {.id, .prefix, .userId, .role, .agentId, .label, .scopeIds, .scopeTags, .createdAt, .revokedAt} AS key
