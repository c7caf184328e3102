"""Value helpers every domain shares: ids, times, cursors, and Neo4j values made JSON-ready.

* **Ids** of notes, threads and messages: 1-128 characters of letters, digits and
  ``._:@-`` (:func:`check_id`); server-made ids that sort by time (:func:`sortable_id`).
* **Times**: the queries return the times of listed records as epoch milliseconds (cheaper
  to decode than the driver's ``DateTime``); they leave the domain as ISO-8601 strings
  (:func:`iso_millis`).
* **Cursors**: opaque page cursors over a (time, id) position, encoded as the wire's
  (:mod:`ctxnet.wire.cursors`); one this API did not issue is a 422 on ``cursor``.
* **Neo4j values** of any shape made JSON-ready (:func:`plain`).
"""

from __future__ import annotations

import functools
import json
import re
import secrets
import time
from datetime import UTC, datetime
from typing import Any

from neo4j.time import Date, DateTime, Duration, Time

from ctxnet.wire import cursors
from ctxnet.wire.cursors import MAX_SEQ
from ctxnet.wire.cursors import encode_cursor as encode_cursor
from ctxnet.wire.cursors import encode_key_cursor as encode_key_cursor
from graph.core.errors import InvalidInput

#: No "/": an id is one segment of a URL path (``/v1/knowledge/{id}``), and Starlette decodes
#: ``%2F`` before routing, so an id with a slash could be created but never read again.
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$")
#: A cursor's time as Neo4j writes it (``toString(datetime)``), which Neo4j parses back.

#: Keys whose values the queries return as epoch milliseconds; they leave as ISO-8601 strings.
TIME_KEYS = frozenset(
    {
        "createdAt",
        "decidedAt",
        "updatedAt",
        "mergedAt",
        "startedAt",
        "finishedAt",
        "extractedAt",
        "endedAt",
        "resolvedAt",
        "setAt",
        "closedAt",
        "lastLoadedAt",
        "recordedAt",
        "savedAt",
        "lastAccessAt",
        "lastWriteAt",
        "lastTouchedAt",
        "at",
    }
)


def check_id(value: str, field: str = "id") -> str:
    """Ids of notes, threads and messages: 1-128 characters of letters, digits and ``._:@-``,
    starting with a letter or digit."""
    if not _ID.fullmatch(value):
        raise InvalidInput(
            f"{field} must be 1-128 characters of letters, digits and ._:@- starting with a letter or digit",
            field=field,
        )
    return value


def decode_seq_cursor(cursor: str) -> int:
    """A cursor that is a message's position in its thread; anything else is a 422."""
    if not cursor.isdigit() or int(cursor) > MAX_SEQ:
        raise InvalidInput("cursor is not one this API issued", field="cursor")
    return int(cursor)


def sortable_id() -> str:
    """Ids that sort by creation time (newest-first listings page by id)."""
    return f"{int(time.time() * 1000):013d}{secrets.token_hex(6)}"


@functools.lru_cache(maxsize=65_536)
def iso_millis(epoch_millis: int) -> str:
    """``2026-11-29T15:05:27.646+00:00``. Cached: notes written together share their time
    (one transaction, one ``datetime()``), and a search converts a hundred of them."""
    return datetime.fromtimestamp(epoch_millis / 1000, UTC).isoformat(timespec="milliseconds")


def plain(value: Any) -> Any:
    """Neo4j values as JSON-friendly Python (times to ISO-8601 strings)."""
    if isinstance(value, DateTime | Date | Time):
        return value.to_native().isoformat()
    if isinstance(value, Duration):
        return str(value)
    if isinstance(value, dict):
        return {
            k: iso_millis(v) if k in TIME_KEYS and isinstance(v, int) else plain(v) for k, v in value.items()
        }
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def decode_cursor(cursor: str) -> tuple[str, str]:
    """The position and last id of a time cursor (:func:`~ctxnet.wire.cursors.decode_cursor`);
    anything else, however it was made, is a 422 on ``cursor``."""
    try:
        return cursors.decode_cursor(cursor)
    except ValueError as exc:
        raise InvalidInput("cursor is not one this API issued", field="cursor") from exc


def decode_key_cursor(cursor: str) -> str:
    """The sort key of a key cursor (:func:`~ctxnet.wire.cursors.decode_key_cursor`); anything
    else is a 422 on ``cursor``."""
    try:
        return cursors.decode_key_cursor(cursor)
    except ValueError as exc:
        raise InvalidInput("cursor is not one this API issued", field="cursor") from exc


def data_view(row: dict[str, Any]) -> dict[str, Any]:
    """``row`` (a note, a merge record or a message as a query projects it) with its payload
    as the value it was sent as, in place: ``data`` is stored as compact JSON text, and read
    back with its key order and its integers as they were; absent when it has none."""
    text = row.pop("data", None)
    if text is not None:
        row["data"] = json.loads(text)
    return row
