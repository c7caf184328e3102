// The restore's marks off the user's Tenant once a discard deleted all it wrote: the user is
// empty again, and takes writes (and another restore).
MATCH (t:Tenant {userId: $userId})
WHERE t.restoring = $restoreId
REMOVE t.restoring, t.restoreFrom, t.restoreSha256, t.restoreRecords, t.restoreHeader, t.restoreDone, t.restoreStartedAt
RETURN t.userId AS userId
