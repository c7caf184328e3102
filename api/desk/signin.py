"""The desk's sign-in: a person's key in, a server-side session out.

A person signs in with their API key (an agent's key is refused). The key is checked and
then forgotten: the browser never holds it. The session is a key of its own, minted through
:class:`graph.core.principals.ApiKeys` (stored in Neo4j as a hash, like every key), so every
API process behind the port knows it, a sign-out revokes it (at once on the process that
signs out, within the keys' ``cache_seconds`` on the others, as for every key), and no second
store exists beside the one the API already has. Its label says it is a desk session, until
when it holds, and which key signed in: revoking that key ends its desk sessions too.
The browser holds only the session's secret, in an ``HttpOnly``, ``SameSite=Strict`` cookie
scoped to ``/desk`` (``Secure`` over HTTPS).

Every form carries a CSRF token derived from the session's secret (an HMAC: nothing to
store, and unguessable without the cookie script cannot read); the sign-in form, before any
session, pairs its token with a cookie of its own (double submit).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass

from fastapi import Request, Response

from graph.core.errors import Forbidden, Unauthenticated
from graph.core.principals import DESK_LABEL, ApiKeys, Principal, Role

#: The session cookie (its value: the session key's secret).
COOKIE = "desk_session"
#: The sign-in form's own CSRF cookie, before there is a session.
PRE_COOKIE = "desk_signin"
#: How long a session lasts without signing in again.
SESSION_SECONDS = 8 * 3600
#: What a session key's label starts with: ``desk:<expires epoch>:<signing key id>``.
LABEL = DESK_LABEL
PATH = "/desk"


@dataclass(frozen=True)
class DeskSession:
    """A signed-in person: who they act as, and the token their forms carry."""

    principal: Principal
    csrf: str
    expires_at: int


def csrf_token(secret: str) -> str:
    """The CSRF token of a session (or of a sign-in form's cookie)."""
    return hmac.new(secret.encode("utf-8"), b"desk-csrf", hashlib.sha256).hexdigest()


def tokens_match(expected: str, given: str | None) -> bool:
    """Constant-time comparison of a CSRF token."""
    return given is not None and hmac.compare_digest(expected.encode("utf-8"), given.encode("utf-8"))


def set_cookie(request: Request, response: Response, name: str, value: str, max_age: int) -> None:
    """A desk cookie: HttpOnly, SameSite=Strict, scoped to /desk, Secure over HTTPS."""
    response.set_cookie(
        name, value, max_age=max_age, path=PATH, httponly=True, samesite="strict",
        secure=request.url.scheme == "https",
    )  # fmt: skip


def clear_cookie(request: Request, response: Response, name: str) -> None:
    """Remove a desk cookie."""
    response.delete_cookie(
        name, path=PATH, httponly=True, samesite="strict", secure=request.url.scheme == "https"
    )


def _label(expires_at: int, signer: str | None) -> str:
    return f"{LABEL}:{expires_at}:{signer or '-'}"


def _parse(label: str | None) -> tuple[int, str] | None:
    kind, _, rest = (label or "").partition(":")
    expires, _, signer = rest.partition(":")
    if kind != LABEL or not expires.isdigit():
        return None
    return int(expires), signer


class SessionStore:
    """Desk sessions, kept as keys in Neo4j (see the module's docstring)."""

    def __init__(self, keys: ApiKeys) -> None:
        self._keys = keys

    async def sign_in(self, key: str) -> tuple[str, DeskSession]:
        """Check a person's key; a new session's secret and the session. An agent's key, or
        a desk session's own, is :class:`Forbidden`; an unknown one :class:`Unauthenticated`."""
        person = await self._keys.resolve(key.strip(), desk=True)
        if person.role != Role.HUMAN:
            raise Forbidden("the desk is for people: sign in with a person's key, not an agent's")
        mine = {k.id: k for k in await self._keys.list(person.user_id)}
        signer = mine.get(person.key_id or "")
        if signer is not None and _parse(signer.label) is not None:
            raise Forbidden("sign in with your own API key, not a desk session")
        await self._sweep(person.user_id)
        expires_at = int(time.time()) + SESSION_SECONDS
        info, secret = await self._keys.create(
            person.user_id, Role.HUMAN, label=_label(expires_at, person.key_id), scope=person.scope
        )
        principal = Principal(user_id=info.user_id, role=Role.HUMAN, key_id=info.id, scope=info.scope)
        return secret, DeskSession(principal, csrf_token(secret), expires_at)

    async def resume(self, secret: str | None) -> DeskSession:
        """The session of a cookie: :class:`Unauthenticated` when there is none, it expired,
        was signed out, or the key that signed it in was revoked."""
        if not secret:
            raise Unauthenticated("not signed in")
        principal = await self._keys.resolve(secret, desk=True)
        keys = await self._keys.held(principal.user_id)
        if principal.key_id not in keys:  # a session newer than the keys kept (a read raced it)
            keys = await self._keys.held(principal.user_id, fresh=True)
        own = keys.get(principal.key_id or "")
        parsed = _parse(own.label) if own is not None else None
        if parsed is None:
            raise Unauthenticated("not a desk session")
        expires_at, signer = parsed
        if expires_at <= time.time() or signer not in keys:
            await self._keys.revoke(principal.key_id or "")
            raise Unauthenticated("the desk session ended; sign in again")
        return DeskSession(principal, csrf_token(secret), expires_at)

    async def sign_out(self, session: DeskSession) -> None:
        """End a session everywhere at once."""
        await self._keys.revoke(session.principal.key_id or "")

    async def _sweep(self, user_id: str) -> None:
        """Revoke the user's desk sessions that expired without a sign-out."""
        now = time.time()
        for key in await self._keys.list(user_id):
            parsed = _parse(key.label)
            if parsed is not None and parsed[0] <= now:
                await self._keys.revoke(key.id)


def new_signin_token() -> str:
    """The random value of a sign-in form's cookie."""
    return secrets.token_urlsafe(32)
