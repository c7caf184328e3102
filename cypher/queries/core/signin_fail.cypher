// Count one failed desk sign-in of a client or a user ($subject, e.g. "signin:client:<ip>")
// in its fixed window ($window, of $span seconds), and return this window's count and the
// last one's, for a sliding estimate. The SET takes the window's write lock, so failures
// counted at once (from any API process) queue here. A window matters until two spans
// after its last failure (expiresAt). The subject's windows two or more behind this one go
// (an index seek on the subject), and so do up to 100 windows of any subject past their
// expiresAt (a seek on that index, never a scan of every window).
MERGE (w:RateWindow {keyId: $subject, window: $window})
  ON CREATE SET w.count = 0, w.userId = $userId
SET w.count = w.count + 1, w.touchedAt = datetime(),
  w.expiresAt = datetime() + duration({seconds: 2 * $span})
WITH w
OPTIONAL MATCH (last:RateWindow {keyId: $subject, window: $window - 1})
WITH w, coalesce(last.count, 0) AS previous
CALL () {
  MATCH (old:RateWindow)
  WHERE old.keyId = $subject AND old.window < $window - 1
  WITH old LIMIT 100
  DELETE old
}
CALL () {
  MATCH (old:RateWindow)
  WHERE old.expiresAt < datetime()
  WITH old LIMIT 100
  DELETE old
}
RETURN previous, w.count AS current
