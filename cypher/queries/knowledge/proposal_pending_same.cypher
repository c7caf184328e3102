// A pending proposal of the same write by the same proposer, if one waits already: the
// feedback loop, or an agent retrying, asks again and again; a person decides once.
MATCH (p:Proposal)
USING INDEX p:Proposal(userId, seq)
WHERE p.userId = $userId AND p.seq IS NOT NULL AND p.status = 'pending' AND p.op = $op
  AND p.payload = $payload AND p.role = $role
  AND coalesce(p.targetId, '') = coalesce($targetId, '') AND coalesce(p.agentId, '') = coalesce($agentId, '')
RETURN p {.*, createdAt: p.createdAt.epochMillis} AS proposal
LIMIT 1
