// The user is forgotten: their Tenant node becomes a tombstone, so a write still in flight
// (a running job, a key another replica has cached for a few seconds) is refused by the
// write gate instead of writing the user back. A new key for the user lifts it.
MATCH (t:Tenant {userId: $userId})
SET t.forgottenAt = datetime(), t.notes = 0
RETURN t.forgottenAt IS NOT NULL AS forgotten
