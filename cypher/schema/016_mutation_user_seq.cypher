// A user's journal in the order of the write gate's sequence (newest first when listed).
CREATE INDEX mutation_user_seq IF NOT EXISTS
FOR (m:Mutation) ON (m.userId, m.seq)
