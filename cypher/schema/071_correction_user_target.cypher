// The corrections of one note, read under the write gate before every agent write to it.
CREATE INDEX correction_user_target IF NOT EXISTS
FOR (c:Correction) ON (c.userId, c.targetId)
