// The merge records a note's delete holds for its undo, found by the delete's mutation
// (queries/knowledge/note_held_claim, note_restore; a forget's scrub).
CREATE INDEX merged_note_held IF NOT EXISTS
FOR (m:MergedNote) ON (m.userId, m.heldBy)
