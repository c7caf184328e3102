// Keys are looked up by the sha256 of the secret; the secret itself is never stored.
CREATE CONSTRAINT api_key_hash IF NOT EXISTS
FOR (k:ApiKey) REQUIRE k.hash IS UNIQUE
