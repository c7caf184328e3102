// A user's merge records, found without scanning everyone's when the user is forgotten
// (merged_note_requested leaves out records without a requested id).
CREATE INDEX merged_note_user IF NOT EXISTS
FOR (m:MergedNote) ON (m.userId)
