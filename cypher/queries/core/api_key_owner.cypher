// Whose key a presented secret is, or looks like (its hash, else its shown prefix), revoked
// or not: the user a failed desk sign-in counts against.
MATCH (k:ApiKey)
WHERE k.hash = $hash OR k.prefix = $prefix
RETURN k.userId AS userId
ORDER BY k.hash = $hash DESC
LIMIT 1
