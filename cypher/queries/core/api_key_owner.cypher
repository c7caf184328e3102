// The person a failed desk sign-in counts against: the owner of the typed secret when it is
// a person's key (revoked or not), else, when it is no key at all, the owner of a person's
// key with the prefix it carries (the one `ctxnet keys list` shows). An agent's key, or a
// wrong key bearing only an agent key's prefix, is no one's: it counts against its client
// only, so an agent cannot spend its person's budget. Two index seeks (hash, prefix).
OPTIONAL MATCH (exact:ApiKey {hash: $hash})
OPTIONAL MATCH (like:ApiKey {prefix: $prefix})
  WHERE exact IS NULL AND like.role = 'human'
WITH exact, collect(like.userId)[0] AS guessed
WITH CASE WHEN exact IS NULL THEN guessed WHEN exact.role = 'human' THEN exact.userId END AS userId
WHERE userId IS NOT NULL
RETURN userId
