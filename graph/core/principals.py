"""Principals and the API keys that resolve to them.

Every request is made by a :class:`Principal`: a user id (whose data it may see), a
role (``human`` or ``agent``; human corrections outrank agent writes) and optionally
the agent's id. Keys are random 256-bit secrets; Neo4j stores only their sha256, so a
leaked database does not leak usable keys.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum
from typing import Any

from graph.core.db import Database
from graph.core.errors import InvalidInput, NotFound, Unauthenticated
from graph.core.ledger import Ledger

KEY_PREFIX = "ctxn_"
_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@:-]{0,127}$")


class Role(StrEnum):
    """Who is behind a write: a person or an agent (through their API keys), or a pipeline
    of the service itself (extraction, the feedback loop, consolidation), which no key has."""

    HUMAN = "human"
    AGENT = "agent"
    SYSTEM = "system"


#: An agent id no record carries (ids are 1-128 characters): a list narrowed to it is empty.
NO_AGENT = ""

#: The roles an API key can carry.
KEY_ROLES = (Role.HUMAN, Role.AGENT)
#: What the label of a desk session's key started with (``desk:...``), when a sign-in minted
#: one: such a key answers at the desk only (:meth:`ApiKeys.resolve`), and a sign-in revokes it.
DESK_LABEL = "desk"
#: The exact label such a minted key carried: ``desk:<expires epoch>:<signing key id, or "-">``
#: (the signer ``key_<hex>``). A person's own key labelled otherwise (``desk:2025``,
#: ``desk:laptop``) is theirs: the API and the desk never take it for a session's. One pattern
#: for Python's ``re`` and Cypher's ``=~`` (Java's regular expressions), matched whole by both.
DESK_MINTED = r"desk:([1-9][0-9]{8,10}):(key_[0-9a-f]{1,32}|-)"
#: What a desk session's secret starts with (``api/desk/signin.py``): kept on the key that
#: signed in, never a key itself.
DESK_PREFIX = "ctxd_"


@dataclass(frozen=True)
class Scope:
    """A part of a user's knowledge: the notes with one of these ids or carrying one of these
    tags. A key with a scope sees only that part; a caller's own scope can only narrow it."""

    ids: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()

    def admits(self, note_id: str, tags: Sequence[str] | None) -> bool:
        """Whether a note with this id and these tags is inside the scope."""
        return note_id in self.ids or any(t in self.tags for t in tags or ())

    @staticmethod
    def parse(specs: Sequence[str]) -> Scope | None:
        """``tag:<tag>`` and ``id:<note id>`` items (the CLI's ``--scope``); none: no scope."""
        ids: list[str] = []
        tags: list[str] = []
        for spec in specs:
            for item in (part.strip() for part in spec.split(",")):
                kind, _, value = item.partition(":")
                if kind not in ("tag", "id") or not value.strip():
                    raise InvalidInput(
                        f"a scope item is tag:<tag> or id:<note id> (got {item!r})", field="scope"
                    )
                (tags if kind == "tag" else ids).append(value.strip())
        return Scope(ids=tuple(dict.fromkeys(ids)), tags=tuple(dict.fromkeys(tags))) if ids or tags else None

    def describe(self) -> str:
        """As the CLI prints it."""
        return ",".join([*(f"tag:{t}" for t in self.tags), *(f"id:{i}" for i in self.ids)])

    def param(self) -> dict[str, list[str]]:
        """As the queries take it (``$scope``, ``$focus``)."""
        return {"ids": list(self.ids), "tags": list(self.tags)}

    @staticmethod
    def of(scope: Scope | None) -> dict[str, list[str]] | None:
        """``scope`` as a query parameter; ``None`` (no narrowing) for no scope."""
        return scope.param() if scope is not None else None


@dataclass(frozen=True)
class Principal:
    """The caller of a request."""

    user_id: str
    role: Role
    agent_id: str | None = None
    key_id: str | None = None
    #: The session the caller acts in (``X-Session-ID``), recorded on what it writes.
    session_id: str | None = None
    #: Why the request changes what it changes (``X-Change-Reason``), kept with a correction.
    reason: str | None = None
    #: The key's entity scope: the part of the user's knowledge it may see (``None``: all).
    scope: Scope | None = None

    def sees(self, note_id: str, tags: Sequence[str] | None) -> bool:
        """Whether this caller's key may see the note (no scope: every note of the user)."""
        return self.scope is None or self.scope.admits(note_id, tags)

    def sees_agent(self, agent_id: str | None) -> bool:
        """Whether this caller sees an agent's work state (its sessions, their pending actions,
        tool calls and pages, the goals it set): every agent's, but a scoped key only its own."""
        return self.scope is None or (self.agent_id is not None and agent_id == self.agent_id)

    def agent_view(self, requested: str | None) -> str | None:
        """The agent a list of work state is narrowed to: ``requested`` (``None``: all) for an
        unscoped key; a scoped key's own agent, or :data:`NO_AGENT` when it asked for another
        or has none."""
        if self.scope is None:
            return requested
        if self.agent_id is None or (requested is not None and requested != self.agent_id):
            return NO_AGENT
        return self.agent_id

    @property
    def actor(self) -> str:
        """Who calls, for what is kept per caller (catch_up's last access): the agent, else
        the key, else the role (no keys: local mode)."""
        if self.agent_id is not None:
            return f"agent:{self.agent_id}"
        return f"key:{self.key_id}" if self.key_id is not None else f"{self.role.value}:local"

    def pipeline(self, name: str) -> Principal:
        """The same user, as a pipeline of the service (``name``, e.g. ``extractor:rules-v1``):
        what it writes carries the system role, never the role of whoever started it."""
        return replace(self, role=Role.SYSTEM, agent_id=name)


@dataclass(frozen=True)
class ApiKeyInfo:
    """An API key as listed (never with its secret)."""

    id: str
    prefix: str
    user_id: str
    role: Role
    agent_id: str | None
    label: str | None
    created_at: datetime | None
    revoked_at: datetime | None
    scope: Scope | None = None
    #: Until when the desk session opened with this key holds (epoch seconds), if one was.
    desk_until: int | None = None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> ApiKeyInfo:
        """Build from the ``key`` map the api_key queries return."""
        return cls(
            id=row["id"],
            prefix=row["prefix"],
            user_id=row["userId"],
            role=Role(row["role"]),
            agent_id=row.get("agentId"),
            label=row.get("label"),
            created_at=_native(row.get("createdAt")),
            revoked_at=_native(row.get("revokedAt")),
            scope=_scope(row),
            desk_until=row.get("deskUntil"),
        )


def _scope(row: dict[str, Any]) -> Scope | None:
    """A key's stored scope (``scopeIds``, ``scopeTags``; both null: none)."""
    if row.get("scopeIds") is None and row.get("scopeTags") is None:
        return None
    return Scope(ids=tuple(row.get("scopeIds") or ()), tags=tuple(row.get("scopeTags") or ()))


def _native(value: Any) -> datetime | None:
    return value.to_native() if value is not None else None


def hash_key(secret: str) -> str:
    """The stored form of a key."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def validate_identifier(value: str, field: str) -> str:
    """User and agent ids: 1-128 characters of letters, digits and ``._@:-``."""
    if not _ID_PATTERN.fullmatch(value):
        raise InvalidInput(
            f"{field} must be 1-128 characters of letters, digits and ._@:- (got {value!r})",
            field=field,
        )
    return value


class ApiKeys:
    """Create, list, revoke and resolve API keys.

    With a ``ledger`` (the API's and the CLI's: the data directory's), every revocation and
    every desk session that ends is recorded there too, so that a restore of an older dump
    revokes and ends them again (:mod:`graph.core.ledger`)."""

    def __init__(self, db: Database, cache_seconds: float = 5.0, ledger: Ledger | None = None) -> None:
        self._db = db
        self._cache_seconds = cache_seconds
        self._ledger = ledger
        self._cache: dict[str, tuple[float, Principal, bool]] = {}
        #: Until when each desk session kept in ``_cache`` holds (epoch seconds).
        self._desk_until: dict[str, int] = {}

    async def create(
        self,
        user_id: str,
        role: Role | str,
        agent_id: str | None = None,
        label: str | None = None,
        scope: Scope | None = None,
    ) -> tuple[ApiKeyInfo, str]:
        """A new key for a principal; returns its record and the secret (shown once). A key
        with a ``scope`` sees only that part of the user's knowledge."""
        validate_identifier(user_id, "user")
        if str(role) not in KEY_ROLES:
            raise InvalidInput("role must be 'human' or 'agent'", field="role")
        role = Role(role)
        if agent_id is not None:
            validate_identifier(agent_id, "agent")
        secret = KEY_PREFIX + secrets.token_urlsafe(32)
        rows = await self._db.write(
            "queries/core/api_key_create",
            id="key_" + secrets.token_hex(6),
            hash=hash_key(secret),
            prefix=secret[: len(KEY_PREFIX) + 6],
            userId=user_id,
            role=role.value,
            agentId=agent_id,
            label=label,
            scopeIds=list(scope.ids) if scope else None,
            scopeTags=list(scope.tags) if scope else None,
        )
        return ApiKeyInfo.from_row(rows[0]["key"]), secret

    async def list(self, user_id: str | None = None, include_revoked: bool = False) -> list[ApiKeyInfo]:
        """Keys, optionally of one user."""
        rows = await self._db.read_listed(
            "queries/core/api_key_list", userId=user_id, includeRevoked=include_revoked
        )
        return [ApiKeyInfo.from_row(row["key"]) for row in rows]

    async def revoke(self, key_id: str) -> ApiKeyInfo:
        """Revoke a key; it stops working within ``cache_seconds`` on every replica."""
        rows = await self._db.write("queries/core/api_key_revoke", id=key_id)
        if not rows:
            raise NotFound(f"no API key with id {key_id!r}", field="id")
        self._cache.clear()
        info = ApiKeyInfo.from_row(rows[0]["key"])
        if self._ledger is not None:
            await asyncio.to_thread(self._ledger.revoked, info.id, info.user_id)
        return info

    async def resolve(self, secret: str | None, desk: bool = False) -> Principal:
        """The principal behind a presented key, or :class:`Unauthenticated`. A desk session's
        key (labelled :data:`DESK_LABEL`, ``api/desk``) answers only when ``desk`` says the
        desk asks: its secret sits in a browser's cookie, and is no key to the API."""
        if not secret:
            raise Unauthenticated("missing API key: send 'Authorization: Bearer <key>'")
        if secret.startswith(DESK_PREFIX):
            raise Unauthenticated("a desk session's secret works only at the desk (/desk)")
        digest = hash_key(secret)
        now = time.monotonic()
        cached = self._cache.get(digest)
        if cached is not None and cached[0] > now:
            return self._at(cached[1], cached[2], desk)
        rows = await self._db.read("queries/core/api_key_by_hash", hash=digest, deskLabel=DESK_MINTED)
        if not rows:
            self._cache.pop(digest, None)
            raise Unauthenticated("invalid or revoked API key")
        row = rows[0]
        principal = Principal(
            user_id=row["userId"],
            role=Role(row["role"]),
            agent_id=row.get("agentId"),
            key_id=row["id"],
            scope=_scope(row),
        )
        if self._cache_seconds > 0:
            if len(self._cache) > 10_000:
                self._cache.clear()
            self._cache[digest] = (now + self._cache_seconds, principal, bool(row["desk"]))
        return self._at(principal, bool(row["desk"]), desk)

    async def open_desk(self, key_id: str, secret: str, until: int) -> bool:
        """Hold a desk session (``secret``, until the epoch second ``until``) on a key, in
        place of the one it held; ``False`` when the key is revoked or gone."""
        rows = await self._db.write(
            "queries/core/api_key_desk_open", id=key_id, hash=hash_key(secret), until=until
        )
        self._cache.clear()  # the session it replaced ends at once on this process
        if rows and self._ledger is not None:  # the one it replaced, if any, stays ended
            await asyncio.to_thread(self._ledger.desk_ended, key_id, rows[0]["key"]["userId"])
        return bool(rows)

    async def resolve_desk(self, secret: str) -> tuple[Principal, int]:
        """The person of a desk session's secret and until when it holds, or
        :class:`Unauthenticated` (unknown, signed out, replaced, expired, its key revoked).
        Kept for ``cache_seconds``, as :meth:`resolve` keeps a key."""
        digest = "desk:" + hash_key(secret)
        now = time.monotonic()
        cached = self._cache.get(digest)
        if cached is not None and cached[0] > now and self._desk_until.get(digest, 0) > time.time():
            return cached[1], self._desk_until[digest]
        rows = await self._db.read("queries/core/api_key_by_desk_hash", hash=digest[5:], now=int(time.time()))
        if not rows:
            self._cache.pop(digest, None)
            raise Unauthenticated("the desk session ended; sign in again")
        row = rows[0]
        principal = Principal(
            user_id=row["userId"], role=Role(row["role"]), agent_id=row.get("agentId"),
            key_id=row["id"], scope=_scope(row),
        )  # fmt: skip
        if self._cache_seconds > 0:
            if len(self._cache) > 10_000:
                self._cache.clear()
                self._desk_until.clear()
            self._cache[digest] = (now + self._cache_seconds, principal, False)
            self._desk_until[digest] = int(row["until"])
        return principal, int(row["until"])

    async def close_desk(self, secret: str) -> None:
        """End a desk session at once here (within ``cache_seconds`` on other processes)."""
        rows = await self._db.write("queries/core/api_key_desk_close", hash=hash_key(secret))
        self._cache.pop("desk:" + hash_key(secret), None)
        if rows and self._ledger is not None:
            await asyncio.to_thread(self._ledger.desk_ended, rows[0]["id"])

    async def end_desk(self, key_id: str) -> None:
        """End whatever desk session a key holds (a restore carrying out the ledger again:
        every session the dump holds on it was opened before the sign-in or sign-out that
        the ledger says ended it)."""
        await self._db.write("queries/core/api_key_desk_end", id=key_id)

    @staticmethod
    def _at(principal: Principal, is_desk_session: bool, desk: bool) -> Principal:
        if is_desk_session and not desk:
            raise Unauthenticated("a desk session's key works only at the desk (/desk)")
        return principal
