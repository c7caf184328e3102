"""Page cursors as the API carries them: each listing's cursor has a stated form.

A client passes back the ``nextCursor`` of the page before, as it is; it never needs to read
one. But the OpenAPI document states each listing's form (a ``pattern``), so a malformed
cursor is a 422 naming ``cursor`` before anything is read, and every cursor of that form
names a position in the listing, so one is never refused for what it holds. That is what
a generator of requests from the document (and a client's own checks) can rely on.

The services page by cursors of their own, encoded here (:func:`encode_cursor`,
:func:`encode_key_cursor`): a time and an id packed as base64 JSON, an edge's sort key, a
sequence number. A form translates at the edge: the
parameter's validator hands the service its cursor (:meth:`CursorForm.check`), and
:meth:`CursorForm.wire` turns the service's next cursor into the form a page carries.

The forms: a time is seconds since 1970 (UTC) and nanoseconds, ``1764633600.123456789``,
then ``~`` and the last item's id (``~0:`` or ``~1:`` before a goal's: active or closed; a
date and ``~`` before a decision's); an edge is ``<sourceId>~<TYPE>~<targetId>``; a sequence
number is digits, a journal position two of them (``<seq>.<part>``), a proposal's
``<seq>.<id>``; a skill's cursor is the last skill's id.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, core_schema

from ctxnet.wire.base import ID_PATTERN

#: The largest sequence number a cursor may name (Neo4j integers are 64-bit).
MAX_SEQ = 2**63 - 1
#: A time as a service's cursor holds it (ISO-8601, as every listing pages by a time).
_CURSOR_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$")


def encode_cursor(position: str, last_id: str) -> str:
    """An opaque cursor for the page after ``(position, last_id)``."""
    return base64.urlsafe_b64encode(json.dumps([position, last_id]).encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[str, str]:
    """Inverse of :func:`encode_cursor` for a position in time; a ValueError for anything
    else, however it was made."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        position, last_id = json.loads(base64.urlsafe_b64decode(padded.encode()))
    except (ValueError, TypeError) as exc:
        raise ValueError("not a cursor") from exc
    if not isinstance(position, str) or not isinstance(last_id, str):
        raise ValueError("a cursor holds two strings")
    if not _CURSOR_TIME.match(position):
        raise ValueError("a cursor's position is an ISO-8601 date and time")
    datetime.fromisoformat(position)
    return position, last_id


def encode_key_cursor(key: str) -> str:
    """An opaque cursor for the page after the item whose sort key is ``key`` (a text)."""
    return base64.urlsafe_b64encode(json.dumps(["key", key]).encode()).decode().rstrip("=")


def decode_key_cursor(cursor: str) -> str:
    """Inverse of :func:`encode_key_cursor`; a ValueError for anything else."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        tag, key = json.loads(base64.urlsafe_b64decode(padded.encode()))
    except (ValueError, TypeError) as exc:
        raise ValueError("not a key cursor") from exc
    if tag != "key" or not isinstance(key, str):
        raise ValueError("not a key cursor")
    return key


#: An id inside a cursor (:data:`ctxnet.wire.base.ID_PATTERN` without its anchors).
_ID = ID_PATTERN.removeprefix("^").removesuffix("$")


def _at_most(number: int) -> str:
    """A pattern of the digit strings whose value is at most ``number`` (leading zeros and
    all, as the services read them): fewer digits, or as many and no greater."""
    digits = str(number)
    same_length = [
        f"{digits[:i]}[0-{int(d) - 1}][0-9]{{{len(digits) - i - 1}}}"
        for i, d in enumerate(digits)
        if d != "0"
    ]
    return f"(?:[0-9]{{1,{len(digits) - 1}}}|{'|'.join([*same_length, digits])})"


#: A sequence number: one Neo4j can hold (a signed 64-bit integer, not negative).
_SEQ = _at_most(MAX_SEQ)
_DATE = "[0-9]{4}-[0-9]{2}-[0-9]{2}"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
#: Times a cursor may name; one outside is read as the nearest of them.
_FIRST = int((datetime(1, 1, 1, tzinfo=UTC) - _EPOCH).total_seconds())
_LAST = int((datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC) - _EPOCH).total_seconds())
#: A time as Neo4j writes it (``toString(datetime)``), what the services' cursors hold.
_NEO4J_TIME = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?)(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$")

WHAT = "not a cursor of this listing: pass back the nextCursor of the page before, as it is"


@dataclass(frozen=True)
class CursorForm:
    """One listing's cursor: its ``pattern`` on the wire, and the translation to and from
    the service's cursor (``inbound``, ``outbound``)."""

    pattern: str
    inbound: Callable[[re.Match[str]], str]
    outbound: Callable[[str], str]

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        """Validate as a string, check the form, hand on the service's cursor."""
        return core_schema.no_info_after_validator_function(self.check, handler(source))

    def __get_pydantic_json_schema__(
        self, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        """The string's schema with the form stated."""
        value = dict(handler(schema))
        value["pattern"] = self.pattern
        value["description"] = "The `nextCursor` of the page before, passed back as it is."
        return value

    def check(self, value: str) -> str:
        """The service's cursor for ``value``; a ValueError if it is not of this form."""
        match = re.fullmatch(self.pattern, value)
        if match is None:
            raise ValueError(WHAT)
        return self.inbound(match)

    def wire(self, cursor: str | None) -> str | None:
        """The service's next cursor as a page carries it (``None``: the last page)."""
        return None if cursor is None else self.outbound(cursor)


def _same(match: re.Match[str]) -> str:
    return match.group(0)


def _unchanged(cursor: str) -> str:
    return cursor


def _seconds(text: str) -> str:
    """A time Neo4j wrote as ``<seconds>.<nanoseconds>``."""
    found = _NEO4J_TIME.fullmatch(text)
    if found is None:
        raise ValueError(f"not a time as Neo4j writes one: {text!r}")
    base, fraction, zone = found.groups()
    at = datetime.fromisoformat(base + ("+00:00" if zone == "Z" else zone))
    return f"{(at - _EPOCH) // timedelta(seconds=1)}.{(fraction or '').ljust(9, '0')}"


def _iso(seconds: str, nanos: str) -> str:
    """``<seconds>``, ``<nanoseconds>`` as the ISO-8601 text the services' cursors hold."""
    at = _EPOCH + timedelta(seconds=min(max(int(seconds), _FIRST), _LAST))
    return f"{at.date().isoformat()}T{at.time().isoformat()}.{nanos}Z"


def _timed(
    tail: str, to_last: Callable[[str], str] = str, from_last: Callable[[str], str] = str
) -> CursorForm:
    """A time and the last item's ``tail`` (its id, or more), as the services' time cursors."""

    def inbound(match: re.Match[str]) -> str:
        seconds, nanos, tail = match.groups()
        return encode_cursor(_iso(seconds, nanos), to_last(tail))

    def outbound(cursor: str) -> str:
        position, last = decode_cursor(cursor)
        return f"{_seconds(position)}~{from_last(last)}"

    return CursorForm(rf"^(-?[0-9]{{1,12}})\.([0-9]{{9}})~({tail})$", inbound, outbound)


def _edge_inbound(match: re.Match[str]) -> str:
    return encode_key_cursor(match.group(0).replace("~", " "))


def _edge_outbound(cursor: str) -> str:
    return decode_key_cursor(cursor).replace(" ", "~")


#: Notes, threads, sessions, merges, saved sessions: a time and an id.
TIMED = _timed(_ID)
#: Goals: a time, then ``0:`` (active) or ``1:`` (closed) and the goal's id.
GOALS = _timed(f"[01]:{_ID}")
#: Pending actions: a time, then the action's place in its session's end and its id.
PENDING = _timed(f"[0-9]{{1,6}}:{_ID}")
#: Decisions, patterns, constraints: the time recorded, the entry's date and its id.
ENTRIES = _timed(
    f"{_DATE}~{_ID}",
    to_last=lambda tail: tail.replace("~", "|", 1),
    from_last=lambda last: last.replace("|", "~", 1),
)
#: Edges: ``<sourceId>~<TYPE>~<targetId>``, their sort key.
EDGES = CursorForm(f"^{_ID}~[A-Z_]{{1,40}}~{_ID}$", _edge_inbound, _edge_outbound)
#: Messages, tool calls, corrections: a sequence number.
SEQUENCE = CursorForm(f"^{_SEQ}$", _same, _unchanged)
#: The journal: a mutation's sequence number and its part.
JOURNAL = CursorForm(rf"^{_SEQ}\.{_SEQ}$", _same, _unchanged)
#: Proposals: a sequence number and the proposal's id.
PROPOSALS = CursorForm(rf"^{_SEQ}\.{_ID}$", _same, _unchanged)
#: Skills: the last skill's id.
SKILLS = CursorForm(ID_PATTERN, _same, _unchanged)

TimedCursor = Annotated[str, TIMED]
GoalCursor = Annotated[str, GOALS]
PendingCursor = Annotated[str, PENDING]
EntryCursor = Annotated[str, ENTRIES]
EdgeCursor = Annotated[str, EDGES]
SequenceCursor = Annotated[str, SEQUENCE]
JournalCursor = Annotated[str, JOURNAL]
ProposalCursor = Annotated[str, PROPOSALS]
SkillCursor = Annotated[str, SKILLS]
