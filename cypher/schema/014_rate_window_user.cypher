// Forgetting a user removes their keys' rate windows too.
CREATE INDEX rate_window_user IF NOT EXISTS
FOR (w:RateWindow) ON (w.userId)
