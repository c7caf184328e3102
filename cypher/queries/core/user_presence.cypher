// What the database holds of a user, for a restore carrying out the ledger again: their
// Tenant node (every write of theirs passed the write gate, which makes it), whether it is a
// forgotten user's tombstone, and whether an API key carries their id. Reads only: the gate
// would make the Tenant node of a user the database never held.
OPTIONAL MATCH (t:Tenant {userId: $userId})
RETURN t IS NOT NULL AS wrote, t.forgottenAt IS NOT NULL AS forgotten,
       EXISTS { MATCH (k:ApiKey) WHERE k.userId = $userId } AS keys
