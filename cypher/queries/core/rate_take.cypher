// Let one request of an API key through its rate limit, or not. A sliding minute, estimated
// from this minute's count and the last minute's weighted by the share of it still inside
// the window ($elapsed: how far into this minute we are, 0..1). Only requests let through
// count. The first SET takes this minute's write lock, so concurrent takes of one key (from
// any API process) queue here and each sees the count the one before it left.
MERGE (w:RateWindow {keyId: $keyId, window: $window})
  ON CREATE SET w.count = 0, w.userId = $userId
SET w.touchedAt = datetime()
WITH w
OPTIONAL MATCH (last:RateWindow {keyId: $keyId, window: $window - 1})
WITH w, coalesce(last.count, 0) AS previous
WITH w, previous, previous * (1.0 - $elapsed) + w.count + 1 <= $limit AS allowed
SET w.count = w.count + CASE WHEN allowed THEN 1 ELSE 0 END
WITH w, previous, allowed
CALL (w) {
  MATCH (old:RateWindow)
  WHERE old.keyId = $keyId AND old.window < $window - 1
  DELETE old
}
RETURN allowed, previous, w.count AS current
