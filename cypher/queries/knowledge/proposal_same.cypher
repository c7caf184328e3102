// The same change proposed before: rejected by a person (whoever proposed it: a person
// decides once), or still pending from the same proposer (the feedback loop, or an agent
// retrying, asks again and again). A rejection comes first.
MATCH (p:Proposal)
USING INDEX p:Proposal(userId, seq)
WHERE p.userId = $userId AND p.seq IS NOT NULL AND p.op = $op AND (
  (p.status = 'rejected' AND p.changeKey = $changeKey)
  OR (p.status = 'pending' AND p.payload = $payload AND p.role = $role
      AND coalesce(p.targetId, '') = coalesce($targetId, '')
      AND coalesce(p.agentId, '') = coalesce($agentId, ''))
)
RETURN p {.*, createdAt: p.createdAt.epochMillis, decidedAt: p.decidedAt.epochMillis} AS proposal
ORDER BY CASE p.status WHEN 'rejected' THEN 0 ELSE 1 END, p.seq
LIMIT 1
