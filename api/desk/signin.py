"""The desk's sign-in: a person's key in, a server-side session out.

A person signs in with their API key (an agent's key is refused). The key is checked and
then forgotten: the browser never holds it. A sign-in mints no key: the session is a secret
of its own whose hash is kept on the person's key (:meth:`graph.core.principals.ApiKeys.open_desk`),
in Neo4j, so every API process behind the port knows it and no second store exists. A key
holds one desk session: signing in again with it ends the one before (the other browser is
sent to sign in). A sign-out ends it (at once on the process that signs out, within the
keys' ``cache_seconds`` on the others, as for every key), and so does revoking the key.
The browser holds only the session's secret, in an ``HttpOnly``, ``SameSite=Strict`` cookie:
over HTTPS named ``__Host-desk_session`` (``Secure``, path ``/``, no domain: no other
site or port can set it), over plain http://127.0.0.1 ``desk_session`` on ``/desk``.

Every form carries a CSRF token derived from the session's secret (an HMAC: nothing to
store, and unguessable without the cookie script cannot read); the sign-in form, before any
session, pairs its token with a cookie of its own (double submit). Failed sign-ins are
throttled per client and per person (:class:`graph.core.ratelimit.SignInThrottle`).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from dataclasses import dataclass, field

from fastapi import Request, Response

from graph.core.errors import Forbidden, Unauthenticated
from graph.core.principals import DESK_LABEL, DESK_MINTED, DESK_PREFIX, ApiKeys, Principal, Role

#: The session cookie (its value: the session's secret); ``__Host-`` prefixed over HTTPS.
COOKIE = "desk_session"
#: The sign-in form's own CSRF cookie, before there is a session.
PRE_COOKIE = "desk_signin"
#: How long a session lasts without signing in again.
SESSION_SECONDS = 8 * 3600
#: What the label of a desk session's key started with, when sign-ins minted keys
#: (``desk:<expires epoch>:<signing key id>``): a sign-in revokes the user's such keys.
LABEL = DESK_LABEL
PATH = "/desk"


@dataclass(frozen=True)
class DeskSession:
    """A signed-in person: who they act as, and the token their forms carry."""

    principal: Principal
    csrf: str
    expires_at: int
    #: The session's secret (the cookie's value), to end it with.
    secret: str = field(repr=False, default="")


def csrf_token(secret: str) -> str:
    """The CSRF token of a session (or of a sign-in form's cookie)."""
    return hmac.new(secret.encode("utf-8"), b"desk-csrf", hashlib.sha256).hexdigest()


def tokens_match(expected: str, given: str | None) -> bool:
    """Constant-time comparison of a CSRF token."""
    return given is not None and hmac.compare_digest(expected.encode("utf-8"), given.encode("utf-8"))


def secure(request: Request) -> bool:
    """Whether the browser reached us over HTTPS (directly, or as a trusted proxy says)."""
    return request.url.scheme == "https"


def cookie_name(request: Request, name: str) -> str:
    """A desk cookie's name: ``__Host-`` prefixed over HTTPS, where the browser then refuses
    it from any other origin; plain over http (a browser refuses ``__Host-`` without
    ``Secure``), where cookies of other ports on the host can reach it."""
    return f"__Host-{name}" if secure(request) else name


def cookie(request: Request, name: str) -> str | None:
    """The value of a desk cookie, by the name this scheme gives it."""
    return request.cookies.get(cookie_name(request, name))


def set_cookie(request: Request, response: Response, name: str, value: str, max_age: int) -> None:
    """A desk cookie: HttpOnly, SameSite=Strict; over HTTPS ``__Host-``, Secure, path ``/``;
    over http on ``/desk``."""
    response.set_cookie(
        cookie_name(request, name), value, max_age=max_age, path="/" if secure(request) else PATH,
        httponly=True, samesite="strict", secure=secure(request),
    )  # fmt: skip


def clear_cookie(request: Request, response: Response, name: str) -> None:
    """Remove a desk cookie."""
    response.delete_cookie(
        cookie_name(request, name), path="/" if secure(request) else PATH,
        httponly=True, samesite="strict", secure=secure(request),
    )  # fmt: skip


#: The exact label an earlier version gave a desk session key it minted (:data:`DESK_MINTED`).
_MINTED = re.compile(DESK_MINTED)


def _parse(label: str | None) -> tuple[int, str] | None:
    """A minted desk key's label (``desk:<expires>:<signer>``, exactly), or ``None``."""
    found = _MINTED.fullmatch(label or "")
    if found is None:
        return None
    return int(found.group(1)), found.group(2)


class SessionStore:
    """Desk sessions, kept on the keys that signed in (see the module's docstring)."""

    def __init__(self, keys: ApiKeys) -> None:
        self._keys = keys

    async def sign_in(self, key: str) -> tuple[str, DeskSession]:
        """Check a person's key and open a session on it (ending the one it held); the
        session's secret and the session. An agent's key, or a desk session's secret, is
        :class:`Forbidden`; an unknown or revoked one :class:`Unauthenticated`."""
        key = key.strip()
        if key.startswith(DESK_PREFIX):
            raise Forbidden("sign in with your own API key, not a desk session")
        person = await self._keys.resolve(key, desk=True)
        if person.role != Role.HUMAN:
            raise Forbidden("the desk is for people: sign in with a person's key, not an agent's")
        mine = await self._keys.list(person.user_id)
        if any(k.id == person.key_id and _parse(k.label) for k in mine):
            raise Forbidden("sign in with your own API key, not a desk session")
        for minted in (k for k in mine if _parse(k.label) is not None):
            await self._keys.revoke(minted.id)  # a session key an earlier version minted
        secret = DESK_PREFIX + secrets.token_urlsafe(32)
        expires_at = int(time.time()) + SESSION_SECONDS
        if not await self._keys.open_desk(person.key_id or "", secret, expires_at):
            raise Unauthenticated("invalid or revoked API key")
        return secret, DeskSession(person, csrf_token(secret), expires_at, secret)

    async def resume(self, secret: str | None) -> DeskSession:
        """The session of a cookie: :class:`Unauthenticated` when there is none, it expired,
        was signed out or replaced by a newer sign-in, or its key was revoked."""
        if not secret or not secret.startswith(DESK_PREFIX):
            raise Unauthenticated("not signed in")
        principal, expires_at = await self._keys.resolve_desk(secret)
        return DeskSession(principal, csrf_token(secret), expires_at, secret)

    async def sign_out(self, session: DeskSession) -> None:
        """End a session everywhere at once (the key that opened it keeps working)."""
        await self._keys.close_desk(session.secret)


def new_signin_token() -> str:
    """The random value of a sign-in form's cookie."""
    return secrets.token_urlsafe(32)
