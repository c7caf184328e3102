"""Per-key rate limits, shared by every API process: counted in Neo4j.

A sliding minute, estimated the usual way from two fixed minutes (this one's count, plus
the last one's weighted by the share of it still inside the window): smooth at minute
boundaries, two small nodes per key, one statement per request. Off unless
``CTXNET_RATE_LIMIT_PER_MINUTE`` is set.

Not through the write gate: a key's counter is not the user's memory, and taking the
user's lock would make every read of theirs wait for their writes.
"""

from __future__ import annotations

import math
import time

from graph.core.db import Database
from graph.core.errors import RateLimited
from graph.core.principals import Principal

WINDOW_SECONDS = 60


def retry_after(limit: int, previous: int, current: int, elapsed: float) -> int:
    """Whole seconds until a refused key may send again: until the last minute's weight has
    fallen enough to make room, or, if this minute alone is full, until it ends."""
    if current < limit and previous > 0:
        # previous * (1 - e) + current + 1 <= limit  <=>  e >= 1 - (limit - current - 1) / previous
        free_at = 1.0 - (limit - current - 1) / previous
        wait = (free_at - elapsed) * WINDOW_SECONDS
    else:
        wait = (1.0 - elapsed) * WINDOW_SECONDS
    return max(1, math.ceil(wait - 1e-9))  # 2.0000000001 s of float error is still 2 s


class RateLimiter:
    """``take`` one request of a key, or raise :class:`RateLimited`."""

    def __init__(self, db: Database, per_minute: int) -> None:
        self._db = db
        self.per_minute = per_minute

    @property
    def enabled(self) -> bool:
        """Whether any limit applies."""
        return self.per_minute > 0

    async def take(self, principal: Principal) -> None:
        """Count one request of the principal's key; refuse it over the limit."""
        if not self.enabled or principal.key_id is None:
            return
        now = time.time()
        window, into = divmod(now, WINDOW_SECONDS)
        elapsed = into / WINDOW_SECONDS
        [row] = await self._db.write(
            "queries/core/rate_take",
            keyId=principal.key_id,
            userId=principal.user_id,
            window=int(window),
            elapsed=elapsed,
            limit=self.per_minute,
        )
        if not row["allowed"]:
            wait = retry_after(self.per_minute, int(row["previous"]), int(row["current"]), elapsed)
            raise RateLimited(
                f"this key may make {self.per_minute} requests a minute; retry in {wait}s",
                retry_after=wait,
            )
