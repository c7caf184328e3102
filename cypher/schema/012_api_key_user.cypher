// A user's keys (`ctxnet keys list --user`, forgetting a user) without scanning every key.
CREATE INDEX api_key_user IF NOT EXISTS
FOR (k:ApiKey) ON (k.userId)
