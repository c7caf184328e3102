// The desk's sign-in throttle finds whose key a wrong key's shown prefix is
// (queries/core/api_key_owner): a seek, not a scan of every key.
CREATE INDEX api_key_prefix IF NOT EXISTS
FOR (k:ApiKey) ON (k.prefix)
