// A user's delete corrections, scanned for twins of an agent's new note.
CREATE INDEX correction_user_kind IF NOT EXISTS
FOR (c:Correction) ON (c.userId, c.kind)
