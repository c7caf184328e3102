// Every API key has a unique id (what `ctxnet keys list/revoke` shows).
CREATE CONSTRAINT api_key_id IF NOT EXISTS
FOR (k:ApiKey) REQUIRE k.id IS UNIQUE
