// Count one failed desk sign-in of a client or a user ($subject, e.g. "signin:client:<ip>")
// in its fixed window ($window, of $span seconds), and return this window's count and the
// last one's, for a sliding estimate. The SET takes the window's write lock, so failures
// counted at once (from any API process) queue here. Windows of sign-ins two or more behind
// their subject's newest go, a few at a time; so do those nobody touched for a day.
MERGE (w:RateWindow {keyId: $subject, window: $window})
  ON CREATE SET w.count = 0, w.userId = $userId
SET w.count = w.count + 1, w.touchedAt = datetime()
WITH w
OPTIONAL MATCH (last:RateWindow {keyId: $subject, window: $window - 1})
WITH w, coalesce(last.count, 0) AS previous
CALL (w) {
  MATCH (old:RateWindow)
  WHERE old.keyId STARTS WITH 'signin:'
    AND ((old.keyId = $subject AND old.window < $window - 1)
      OR old.touchedAt < datetime() - duration({days: 1}))
  WITH old LIMIT 100
  DELETE old
}
RETURN previous, w.count AS current
