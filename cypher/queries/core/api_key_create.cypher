// A new API key; only the sha256 of its secret is stored.
CREATE (k:ApiKey {
  id: $id, hash: $hash, prefix: $prefix,
  userId: $userId, role: $role, agentId: $agentId, label: $label,
  createdAt: datetime()
})
RETURN k {.id, .prefix, .userId, .role, .agentId, .label, .createdAt, .revokedAt} AS key
