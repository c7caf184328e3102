// End a desk session (a sign-out): its key keeps working, the session's secret no longer.
MATCH (k:ApiKey {deskHash: $hash})
REMOVE k.deskHash, k.deskUntil
RETURN k.id AS id
