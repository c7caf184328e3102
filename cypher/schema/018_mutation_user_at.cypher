// A user's journal since a time (catch_up's mutations section), read as an index range.
CREATE INDEX mutation_user_at IF NOT EXISTS
FOR (m:Mutation) ON (m.userId, m.at)
