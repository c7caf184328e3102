// The journal: one Mutation per change of a user's memory, written in the transaction of
// the change. A mutation id is unique within its user's journal.
CREATE CONSTRAINT mutation_key IF NOT EXISTS
FOR (m:Mutation) REQUIRE (m.userId, m.id) IS UNIQUE
