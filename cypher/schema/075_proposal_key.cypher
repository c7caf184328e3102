// Proposals: agent writes that would override a correction, waiting for a person.
CREATE CONSTRAINT proposal_key IF NOT EXISTS
FOR (p:Proposal) REQUIRE (p.userId, p.id) IS UNIQUE
