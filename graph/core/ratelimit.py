"""Per-key rate limits and the desk's sign-in throttle, shared by every API process: counted
in Neo4j.

A sliding minute, estimated the usual way from two fixed minutes (this one's count, plus
the last one's weighted by the share of it still inside the window): smooth at minute
boundaries, two small nodes per key, one statement per request. Off unless
``CTXNET_RATE_LIMIT_PER_MINUTE`` is set.

The desk's sign-in throttle (:class:`SignInThrottle`) counts failed sign-ins the same way,
per client and per user, and remembers in the process who is refused until when, so a
refused attempt reads nothing.

Not through the write gate: a key's counter is not the user's memory, and taking the
user's lock would make every read of theirs wait for their writes.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from graph.core.db import Database
from graph.core.errors import RateLimited
from graph.core.principals import KEY_PREFIX, Principal, hash_key

WINDOW_SECONDS = 60


def retry_after(limit: int, previous: int, current: int, elapsed: float, span: int = WINDOW_SECONDS) -> int:
    """Whole seconds until a refused key may send again: until the last window's weight has
    fallen enough to make room, or, if this window alone is full, until it ends (windows of
    ``span`` seconds)."""
    if current < limit and previous > 0:
        # previous * (1 - e) + current + 1 <= limit  <=>  e >= 1 - (limit - current - 1) / previous
        free_at = 1.0 - (limit - current - 1) / previous
        wait = (free_at - elapsed) * span
    else:
        wait = (1.0 - elapsed) * span
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


@dataclass(frozen=True)
class Allowance:
    """At most ``failures`` failed sign-ins in any ``seconds`` (a sliding window); 0: no limit."""

    failures: int
    seconds: int


def free_in(allowance: Allowance, previous: int, current: int, elapsed: float) -> float:
    """Seconds until one more failure fits, this window holding ``current`` and the last
    ``previous``, ``elapsed`` (0..1) into this one; 0 when it fits now."""
    limit, span = allowance.failures, allowance.seconds
    if previous * (1.0 - elapsed) + current + 1 <= limit:
        return 0.0
    if current + 1 <= limit:  # room once enough of the last window's weight has fallen
        until = 1.0 - (limit - current - 1) / previous
        return (until - elapsed) * span
    # This window alone is full: into the next one, until this one's weight has fallen enough.
    return (1.0 - elapsed + max(0.0, 1.0 - (limit - 1) / current)) * span


class SignInThrottle:
    """Failed desk sign-ins, per client and per user: past an :class:`Allowance`, 429.

    Each failure is counted in Neo4j (``signin_fail``, one statement per subject), so every
    API process sees the same counts. When a count uses up its allowance, this process
    refuses the subject (:meth:`check`) until one more would fit, without reading the
    database; another process learns it from its own next failure of that subject. So all
    processes together try at most the allowance plus one key per other process in a window.
    The user of a failure is the person whose key the typed secret is (revoked or not) or, when
    it is no key, looks like (a person's key's prefix, as ``ctxnet keys list`` shows it); the
    process remembers that prefix, so a later attempt with it is refused for the user too
    without a read. An agent's key, or a desk session's secret, counts against its client
    only: an agent that types its own key cannot lock its person out."""

    def __init__(
        self,
        db: Database,
        per_client: Allowance,
        per_user: Allowance,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._db = db
        self._allowances = {"client": per_client, "user": per_user}
        self._clock = clock
        #: Refused subjects, until when (the clock's time).
        self._refused: dict[str, float] = {}
        #: Key prefixes seen in failures, and whose keys they are.
        self._owners: dict[str, str] = {}

    @staticmethod
    def _prefix(secret: str) -> str:
        return secret[: len(KEY_PREFIX) + 6]

    def _subjects(self, client: str, user: str | None) -> list[tuple[str, Allowance]]:
        found = [(f"signin:client:{client}", self._allowances["client"])]
        if user is not None:
            found.append((f"signin:user:{user}", self._allowances["user"]))
        return [(s, a) for s, a in found if a.failures > 0]

    def check(self, client: str, secret: str) -> None:
        """Refuse at once (:class:`RateLimited`) a client, or the user of a known key
        prefix, that used up its allowance; reads nothing."""
        now = self._clock()
        user = self._owners.get(self._prefix(secret))
        waits = [self._refused.get(s, 0.0) - now for s, _ in self._subjects(client, user)]
        if max(waits, default=0.0) > 0:
            raise self._refusal(max(waits))

    async def failed(self, client: str, secret: str) -> None:
        """Count a failed sign-in of ``client`` with ``secret``; :class:`RateLimited` when this
        one was already past an allowance (counted, but answered 429)."""
        user = await self._owner(secret)
        now = self._clock()
        over = 0.0
        for subject, allowance in self._subjects(client, user):
            window, into = divmod(now, allowance.seconds)
            elapsed = into / allowance.seconds
            [row] = await self._db.write(
                "queries/core/signin_fail",
                subject=subject,
                window=int(window),
                span=allowance.seconds,
                userId=user if subject.startswith("signin:user:") else None,
            )
            previous, current = int(row["previous"]), int(row["current"])
            wait = free_in(allowance, previous, current, elapsed)
            if wait > 0:
                self._refuse(subject, now + wait)
            if previous * (1.0 - elapsed) + current > allowance.failures:
                over = max(over, wait)
        if over > 0:
            raise self._refusal(over)

    async def _owner(self, secret: str) -> str | None:
        if not secret.startswith(KEY_PREFIX):
            return None
        prefix = self._prefix(secret)
        rows = await self._db.read("queries/core/api_key_owner", hash=hash_key(secret), prefix=prefix)
        if not rows:
            return None
        if len(self._owners) >= 10_000:
            self._owners.clear()
        self._owners[prefix] = rows[0]["userId"]
        return str(rows[0]["userId"])

    def _refuse(self, subject: str, until: float) -> None:
        if len(self._refused) >= 10_000:
            now = self._clock()
            self._refused = {s: u for s, u in self._refused.items() if u > now}
        self._refused[subject] = max(until, self._refused.get(subject, 0.0))

    def _refusal(self, wait: float) -> RateLimited:
        seconds = max(1, math.ceil(wait - 1e-9))
        client, user = self._allowances["client"], self._allowances["user"]
        return RateLimited(
            f"too many failed sign-ins (at most {client.failures} in {client.seconds}s from one "
            f"client, {user.failures} in {user.seconds}s for one person); retry in {seconds}s",
            retry_after=seconds,
        )
