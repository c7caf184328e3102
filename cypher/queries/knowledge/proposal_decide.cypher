// A person approves or rejects a pending proposal, in the transaction of the approved write
// (whose mutations, journaled in this same write $seq with this proposal's id, it lists).
// No row when the proposal is no longer pending (decided meanwhile).
MATCH (p:Proposal {userId: $userId, id: $id})
WHERE p.status = 'pending'
OPTIONAL MATCH (m:Mutation {userId: $userId, seq: $seq})
WHERE m.proposalId = $id
WITH p, collect(m.id) AS mutationIds
SET p.status = $status, p.decidedAt = datetime(), p.decisionReason = $reason,
    p.decidedByKey = $keyId, p.mutationIds = mutationIds
RETURN p {.*, createdAt: p.createdAt.epochMillis, decidedAt: p.decidedAt.epochMillis} AS proposal
