// A user's proposals newest first (GET /v1/proposals).
CREATE INDEX proposal_user_seq IF NOT EXISTS
FOR (p:Proposal) ON (p.userId, p.seq)
