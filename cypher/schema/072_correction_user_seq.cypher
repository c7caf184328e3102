// A user's corrections newest first (GET /v1/corrections).
CREATE INDEX correction_user_seq IF NOT EXISTS
FOR (c:Correction) ON (c.userId, c.seq)
