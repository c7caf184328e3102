// The user is forgotten: their Tenant node becomes a tombstone, so a write still in flight
// (a running job, a key another replica has cached for a few seconds) is refused by the
// write gate instead of writing the user back. A new key for the user lifts it. A restore
// under way goes with what it wrote (graph/io/restore.py): its marks too.
MATCH (t:Tenant {userId: $userId})
SET t.forgottenAt = datetime(), t.notes = 0
REMOVE t.restoring, t.restoreFrom, t.restoreSha256, t.restoreRecords, t.restoreHeader, t.restoreDone, t.restoreStartedAt
RETURN t.forgottenAt IS NOT NULL AS forgotten
