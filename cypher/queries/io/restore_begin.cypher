// Mark the user as being restored (the write gate then refuses every other write of theirs,
// queries/core/gate_enter): which restore, from which user, the file's checksum, size and
// header (JSON text: what the finish sets and checks),
// and how many of its records are written (none yet). Under the gate, after the check that
// the user holds nothing.
MATCH (t:Tenant {userId: $userId})
SET t.restoring = $restoreId, t.restoreFrom = $from, t.restoreSha256 = $sha256,
    t.restoreRecords = $records, t.restoreHeader = $header, t.restoreDone = 0, t.restoreStartedAt = datetime()
RETURN t.restoring AS restoreId
