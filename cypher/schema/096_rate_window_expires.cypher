// A failed desk sign-in's rate window holds when it stops mattering (queries/core/signin_fail);
// the windows past it are found by this index, a few at a time, never by a scan of every
// window. Only sign-in windows carry the property, so the per-key windows cost it nothing.
CREATE INDEX rate_window_expires IF NOT EXISTS
FOR (w:RateWindow) ON (w.expiresAt)
