"""The limits of the contract that depend on how a server is configured: the most words a
note may hold (``note_max_words``) and the size of a vector (its embedder's dimension).

The wire's validators and schemas ask :func:`server_limits` for them. A server installs a
provider when its app is created (:func:`install`), so its 422s and its OpenAPI document state
its own values; a process that installed none (a client) does not check them and lets the
server answer. A client that knows the server's limits (``GET /v1/limits``) can pass them
to one validation as its context (``model_validate(data, context={LIMITS: limits})``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: The key of a validation context that carries :class:`ServerLimits`.
LIMITS = "ctxnet.limits"


@dataclass(frozen=True)
class ServerLimits:
    """What a server's settings decide: the word limit of a note, the size of a vector."""

    note_max_words: int
    vector_size: int


_provider: Callable[[], ServerLimits] | None = None


def install(provider: Callable[[], ServerLimits] | None) -> None:
    """Make ``provider`` the answer of :func:`server_limits` in this process (None: none)."""
    global _provider  # noqa: PLW0603 - one hook per process, set where the app is made
    _provider = provider


def server_limits(context: Any = None) -> ServerLimits | None:
    """The limits to check against: those a validation's ``context`` carries, else the
    installed provider's; None when neither is there (nothing is checked locally)."""
    carried = context.get(LIMITS) if isinstance(context, dict) else None
    if isinstance(carried, ServerLimits):
        return carried
    return _provider() if _provider is not None else None
