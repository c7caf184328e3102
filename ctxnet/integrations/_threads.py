"""What the thread-keeping integrations (LlamaIndex's memory block, the OpenAI Agents SDK's
session) share: answers of the service, a thread id for a framework's session key, and
appends cut to the service's bounds."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator
from typing import Any

from pydantic import RootModel

from ctxnet.client import Call, Client

#: Messages an append may carry, and about how many bytes (well under the default body limit).
MAX_APPEND, MAX_APPEND_BYTES = 1_000, 1_000_000
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$")


class _Json(RootModel[Any]):
    """Any JSON answer, as it came."""


def answer(client: Client, call: Call) -> Any:
    """The JSON answer of ``call``; an error raises, and so does a 202 (:class:`~ctxnet.client.Proposed`)."""
    return client.request(call, _Json).root


def digest(text: str) -> str:
    """48 hex digits of the SHA-256 of ``text``: an id part for what is not an id."""
    return hashlib.sha256(text.encode()).hexdigest()[:48]


def thread_for(prefix: str, key: str) -> str:
    """The thread id for a framework's session ``key``: ``prefix`` and the key when that is an
    id the service accepts, else ``prefix`` and a digest of the key."""
    candidate = f"{prefix}{key}"
    return candidate if _ID.fullmatch(candidate) else f"{prefix}sha256-{digest(key)}"


def appends(
    rows: list[dict[str, Any]], weight: Callable[[dict[str, Any]], int]
) -> Iterator[list[dict[str, Any]]]:
    """``rows`` in order, in appends of at most :data:`MAX_APPEND` messages and about
    :data:`MAX_APPEND_BYTES` by ``weight`` (a row's bytes)."""
    batch: list[dict[str, Any]] = []
    size = 0
    for row in rows:
        heavy = weight(row)
        if batch and (len(batch) == MAX_APPEND or size + heavy > MAX_APPEND_BYTES):
            yield batch
            batch, size = [], 0
        batch.append(row)
        size += heavy
    if batch:
        yield batch
