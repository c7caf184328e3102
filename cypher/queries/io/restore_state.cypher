// The restore under way for a user, if any: its id, source user, checksum, size, progress.
OPTIONAL MATCH (t:Tenant {userId: $userId})
RETURN t.restoring AS restoreId, t.restoreFrom AS from, t.restoreSha256 AS sha256,
       t.restoreRecords AS records, t.restoreDone AS done, toString(t.restoreStartedAt) AS startedAt,
       t.restoreHeader AS header
