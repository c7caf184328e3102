// One proposal of a user's, by id.
MATCH (p:Proposal {userId: $userId, id: $id})
RETURN p {.*, createdAt: p.createdAt.epochMillis, decidedAt: p.decidedAt.epochMillis} AS proposal
