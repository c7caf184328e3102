// The per-user write gate, the first statement of every write transaction. Writing the
// user's Tenant node locks it until the transaction ends: one user's writes run one at a
// time (each sees everything committed before it), other users' run in parallel.
// The lock is taken by a write before anything is read from the node: a read-then-write
// (MERGE's match, or `seq + 1` first) would let two writers share the node and then both
// wait to upgrade: a deadlock per collision. Only a user's very first write MERGEs (safe
// on the unique userId when two race). `seq` numbers the user's writes without gaps (a
// rolled-back write takes no number); `notes` is the user's exact note count, counted
// once for a user who has none recorded, then kept by the note queries; `forgottenAt` is
// set once the user was forgotten (the gate then refuses the write); `restoring` names a
// restore of the whole user under way (graph/io/restore.py: other writes are refused).
OPTIONAL MATCH (known:Tenant {userId: $userId})
CALL (known) {
  WITH known WHERE known IS NULL
  MERGE (created:Tenant {userId: $userId})
  RETURN created AS t
  UNION
  WITH known WHERE known IS NOT NULL
  RETURN known AS t
}
SET t.lockedAt = datetime()
WITH t
SET t.seq = coalesce(t.seq, 0) + 1,
    t.notes = CASE
      WHEN t.notes IS NULL THEN COUNT { MATCH (n:Knowledge) WHERE n.userId = $userId }
      ELSE t.notes
    END
RETURN t.seq AS seq, t.notes AS notes, t.forgottenAt IS NOT NULL AS forgotten, t.restoring AS restoring
