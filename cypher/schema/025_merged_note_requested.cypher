// A create that was merged into an existing note is found again by the id it asked for.
CREATE INDEX merged_note_requested IF NOT EXISTS
FOR (m:MergedNote) ON (m.userId, m.requestedId)
