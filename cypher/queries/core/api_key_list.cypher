// Keys, optionally of one user; revoked ones only when asked for, each with until when its desk
// session holds (deskUntil, epoch seconds; none: none was opened). One list (db.listed).
MATCH (k:ApiKey)
WHERE ($userId IS NULL OR k.userId = $userId)
  AND ($includeRevoked OR k.revokedAt IS NULL)
WITH k ORDER BY k.createdAt, k.id
RETURN collect({key: k {.id, .prefix, .userId, .role, .agentId, .label, .scopeIds, .scopeTags, .createdAt, .revokedAt, .deskUntil}}) AS rows
