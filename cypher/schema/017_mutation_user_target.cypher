// A thing's history (every mutation of one note, thread, session, ...), read by undo and
// by the correction check under the write gate, and by GET /v1/mutations?targetId=.
CREATE INDEX mutation_user_target IF NOT EXISTS
FOR (m:Mutation) ON (m.userId, m.targetId)
