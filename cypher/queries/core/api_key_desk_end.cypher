// End the desk session a key holds, whichever it is (a restore carrying out the ledger's
// sign-outs and sign-ins again); nothing when it holds none or is gone.
MATCH (k:ApiKey {id: $id})
REMOVE k.deskHash, k.deskUntil
RETURN k.id AS id
