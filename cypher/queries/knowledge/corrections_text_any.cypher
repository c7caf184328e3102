// Whether the user has an active correction that took agent text away (a vector or a
// fingerprint kept): only then must an agent's write be read by the service itself.
RETURN EXISTS {
  MATCH (c:Correction {userId: $userId})
  WHERE c.status = 'active' AND (c.embedding IS NOT NULL OR c.fingerprint IS NOT NULL)
} AS any
