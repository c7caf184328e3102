// How many of the file's records a restore has written: set in the transaction of the batch
// that wrote them, so a batch is written once however often it is sent.
MATCH (t:Tenant {userId: $userId})
WHERE t.restoring = $restoreId
SET t.restoreDone = $done
RETURN t.restoreDone AS done
