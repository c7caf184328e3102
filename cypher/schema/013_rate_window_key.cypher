// Per-key rate limits: one node per key and minute (at most two live per key), shared by
// every API process. Unique, so two processes starting a key's minute together agree.
CREATE CONSTRAINT rate_window_key IF NOT EXISTS
FOR (w:RateWindow) REQUIRE (w.keyId, w.window) IS UNIQUE
