// The merge records a note's delete held ($hold: the write's key for them) are held by its
// mutation from now on: an undo of it finds them by its id, a forget that scrubs it deletes them.
MATCH (m:MergedNote {userId: $userId, heldBy: $hold})
SET m.heldBy = $mutationId
RETURN count(m) AS held
