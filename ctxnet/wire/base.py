"""What every model of API v1 shares: camelCase on the wire, strict input, lenient output,
and the value types whose rules the OpenAPI document states (:data:`Id`, :data:`BoundedJson`).

The models live in ``ctxnet/wire/<domain>.py`` (``ctxnet/wire/<domain>/<part>.py`` for the
larger ones), as in ``graph/``; the server turns a request into the domain's own model in
``api/dto/`` (``new_note(body)``). The API, the Python client and the MCP tools read these
same models, so they carry the same rules; the wire imports nothing of the server.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from types import UnionType
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    model_validator,
)
from pydantic.alias_generators import to_camel
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, core_schema

from ctxnet.wire.limits import server_limits

#: How deep a free-form JSON value may nest (objects and arrays), by default.
JSON_MAX_DEPTH = 20
#: How large it may be as UTF-8 JSON, by default.
JSON_MAX_BYTES = 16_384
#: The bounds of a payload kept exactly (a note's or a message's ``data``): nesting and
#: characters of its compact JSON text (:func:`compact_json`).
DATA_MAX_DEPTH, DATA_MAX_CHARS = 32, 65_536
#: Integers Neo4j can store: signed 64 bits.
JSON_MIN_INT, JSON_MAX_INT = -(2**63), 2**63 - 1
#: The OpenAPI extension that marks a bounded free-form field (what the guard test reads).
BOUNDED_JSON_MARK = "x-bounded-json"
#: Ids of everything a user names (notes, threads, sessions, goals, agents...): 1-128 letters,
#: digits and ``._:@-``, starting with a letter or digit; the services check the same
#: (``graph.core.values.check_id``, held to this by a unit test).
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$"
ID_RULE = "must be 1-128 characters of letters, digits and ._:@- starting with a letter or digit"
#: A character Python's ``str.strip()`` leaves: a text with one is not blank. The pattern of
#: every text field :func:`non_blank` checks, so the document says it too.
NON_BLANK = (
    "[^\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
)
#: ``json_schema_extra`` of such a field.
NOT_BLANK: dict[str, Any] = {"pattern": NON_BLANK}


def absent_not_null(extra: dict[str, Any] | None = None) -> Callable[[dict[str, Any]], None]:
    """``json_schema_extra`` of an optional field that may be left out but not sent as
    null: the document states the value's schema alone (and ``extra``), without the null."""

    def state(schema: dict[str, Any]) -> None:
        options = schema.pop("anyOf", None)
        if options is not None:
            [value] = [option for option in options if option != {"type": "null"}]
            schema.update(value)
        schema.update(extra or {})

    return state


#: A time as the document's ``format: date-time`` means it (RFC 3339: a date, a time with
#: seconds, and its offset from UTC), within what Python and Neo4j hold: years 0001-9999,
#: offsets up to 18 hours. Stated as the pattern of every time field.
RFC3339 = re.compile(
    r"^(?:000[1-9]|00[1-9][0-9]|0[1-9][0-9]{2}|[1-9][0-9]{3})-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}"
    r"(?:\.[0-9]+)?(?:[Zz]|[+-](?:(?:0[0-9]|1[0-7]):[0-5][0-9]|18:00))$"
)


class CamelModel(BaseModel):
    """camelCase on the wire; unknown fields are an error (a typo must not be ignored); and
    JSON read as JSON: a number field takes a number, a flag ``true`` or ``false``.

    FastAPI validates a body as Python objects, where pydantic would also take ``"5"`` or
    ``true`` for a number and ``1`` or ``"yes"`` for a flag, values the document's ``type``
    rules out. Such a value is swapped for one no field takes, before the fields are read, so
    the 422 names the field as any other type error does.
    """

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _json_types(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        checked = dict(data)
        for name, field in cls.model_fields.items():
            kind = _json_kind(field.annotation)
            for key in {name, field.alias or name} & checked.keys():
                checked[key] = _as_json(kind, checked[key])
        return checked


class _NotJson:
    """What a value of the wrong JSON type becomes: no field type takes it."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        return repr(self.value)


#: The scalar types whose values pydantic converts from other JSON types, and what each takes.
_JSON_TAKES: dict[Any, tuple[type, ...]] = {bool: (bool,), int: (int, float), float: (int, float)}
#: The exact Python types of the JSON values each takes (``bool`` is not a number).
_JSON_TYPES: dict[Any, set[type]] = {bool: {bool}, int: {int, float}, float: {int, float}}


def _json_kind(annotation: Any) -> tuple[str, Any] | None:
    """``("one", t)`` for a field of scalar type ``t`` (optional or not), ``("list", t)`` for
    a list of them; None for anything else (models check themselves, strings are strict)."""
    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    if get_origin(annotation) in (Union, UnionType):
        members = [a for a in get_args(annotation) if a is not type(None)]
        if len(members) != 1:
            return None
        return _json_kind(members[0])
    if annotation in _JSON_TAKES:
        return ("one", annotation)
    if get_origin(annotation) is list:
        inner = _json_kind(get_args(annotation)[0])
        return ("list", inner[1]) if inner and inner[0] == "one" else None
    return None


def _as_json(kind: tuple[str, Any] | None, value: Any) -> Any:
    if kind is None or value is None:
        return value
    form, scalar = kind
    if form == "list":
        if not isinstance(value, list):
            return value
        if set(map(type, value)) <= _JSON_TYPES[scalar]:  # at C speed: a vector is 384+ numbers
            return value
        return [_as_json(("one", scalar), v) for v in value]
    # bool is an int to Python, not a number to JSON.
    taken = isinstance(value, _JSON_TAKES[scalar]) and (scalar is bool or not isinstance(value, bool))
    return value if taken else _NotJson(value)


class OutModel(BaseModel):
    """Response bodies: camelCase, unknown fields passed through."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")


def dump(model: BaseModel) -> dict[str, Any]:
    """camelCase JSON without empty optional fields."""
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


def non_blank(value: str, what: str) -> str:
    """``value`` stripped; blank is an error naming ``what``."""
    if not value.strip():
        raise ValueError(f"{what} must not be empty")
    return value.strip()


#: A tag: 1-64 characters, not blank (stored stripped).
Tag = Annotated[str, Field(json_schema_extra={"minLength": 1, "maxLength": 64, **NOT_BLANK})]


def unique_tags(values: list[str] | None) -> list[str] | None:
    """Tags stripped and without repeats, each 1-64 characters as sent and not blank."""
    if values is None:
        return None
    cleaned: list[str] = []
    for value in values:
        tag = value.strip()
        if not tag or len(value) > 64:
            raise ValueError("each tag must be 1-64 characters")
        if tag not in cleaned:
            cleaned.append(tag)
    return cleaned


@dataclass(frozen=True)
class IdFormat:
    """The id rule (:data:`ID_PATTERN`) on a string field or parameter: checked on input (a
    422 naming the field), and stated in its schema (``pattern``, ``minLength``,
    ``maxLength``), so the document says what the server enforces."""

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        """Validate as ``source`` (a string), then check the rule."""
        return core_schema.no_info_after_validator_function(self.check, handler(source))

    def __get_pydantic_json_schema__(
        self, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        """The string's schema with the rule stated."""
        value = dict(handler(schema))
        value.update(pattern=ID_PATTERN, minLength=1, maxLength=128)
        return value

    @staticmethod
    def check(value: str) -> str:
        """``value`` if it is an id; else a ValueError saying what an id is."""
        if not re.fullmatch(ID_PATTERN, value):
            raise ValueError(ID_RULE)
        return value


#: An id (see :data:`ID_PATTERN`): the type of every id a request names, in a path, a query
#: or a body.
Id = Annotated[str, IdFormat()]


def _date_time_text(value: Any) -> Any:
    """``value`` if it is RFC 3339 text (or already an aware datetime, from Python callers);
    pydantic alone would also take a number of seconds (``since=0.5``) or a time without
    its offset, which ``format: date-time`` does not allow."""
    if isinstance(value, datetime) or (isinstance(value, str) and RFC3339.match(value)):
        return value
    raise ValueError(
        "must be a date and time with its offset (RFC 3339; years 0001-9999, offsets up to 18:00), "
        "e.g. 2026-01-31T09:00:00Z"
    )


#: A point in time: RFC 3339 text with its offset, as ``format: date-time`` says.
DateTime = Annotated[
    AwareDatetime, BeforeValidator(_date_time_text), Field(json_schema_extra={"pattern": RFC3339.pattern})
]


def _day_text(value: Any) -> Any:
    """``value`` if it is a date as ``YYYY-MM-DD`` (or already a date); pydantic alone would
    also take a number of seconds or a time of day, which ``format: date`` does not allow."""
    if isinstance(value, date) or (isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value)):
        return value
    raise ValueError("must be a date as YYYY-MM-DD")


#: A day: ``YYYY-MM-DD`` text, as ``format: date`` says.
Day = Annotated[date, BeforeValidator(_day_text)]


#: The largest size of a vector's number, and the smallest its largest may have: within
#: them its length is a finite, non-zero number (what the services check) in any dimension,
#: also as the 32-bit floats the vector indexes hold.
VECTOR_MAX, VECTOR_MIN = 1e15, 1e-15


def _vector(values: list[float]) -> list[float]:
    if any(not -VECTOR_MAX <= v <= VECTOR_MAX for v in values):
        raise ValueError(f"each number must be within ±{VECTOR_MAX:g}")
    if values and max(abs(v) for v in values) < VECTOR_MIN:
        raise ValueError(
            f"at least one number must be {VECTOR_MIN:g} or more in size (a vector has a direction)"
        )
    return values


def vector_size(schema: dict[str, Any]) -> None:
    """``json_schema_extra`` of a vector field: it states the size the vector indexes take
    (the server's embedder's, :mod:`ctxnet.wire.limits`), the only size the services accept."""
    limits = server_limits()
    if limits is not None:
        schema.update(minItems=limits.vector_size, maxItems=limits.vector_size)
    schema.update(
        items={"type": "number", "minimum": -VECTOR_MAX, "maximum": VECTOR_MAX},
        contains={"anyOf": [{"minimum": VECTOR_MIN}, {"maximum": -VECTOR_MIN}]},
    )


#: A vector of a JSON body: numbers (not ``true``), each within :data:`VECTOR_MAX`, one at
#: least :data:`VECTOR_MIN` in size; its size is stated with :func:`vector_size`.
Vector = Annotated[list[float], AfterValidator(_vector)]


@dataclass(frozen=True)
class JsonBounds:
    """The bounds of a free-form JSON field, checked on the raw value before anything else
    reads it: nesting at most ``max_depth``, at most ``max_bytes`` as UTF-8 JSON, strings
    and keys that are UTF-8 (no lone surrogates), integers that fit 64 bits, finite numbers.

    A value past them is a 422 naming the field, where it would otherwise be stored and then
    break every read of it (a replay nested 300 deep), or fail inside the driver (500).
    ``Annotated[T, JsonBounds()]`` bounds any field; :data:`BoundedJson` is any JSON value.
    """

    max_depth: int = JSON_MAX_DEPTH
    max_bytes: int = JSON_MAX_BYTES
    #: When set, the size is counted in characters of the compact JSON text instead
    #: (:func:`compact_json`: what a payload kept exactly is stored as).
    max_chars: int | None = None

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        """Check the bounds first, then validate as ``source``."""
        return core_schema.no_info_before_validator_function(self.check, handler(source))

    def __get_pydantic_json_schema__(
        self, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        """The inner type's schema, marked with its bounds (``x-bounded-json``)."""
        value = dict(handler(schema))
        size = {"maxChars": self.max_chars} if self.max_chars is not None else {"maxBytes": self.max_bytes}
        value[BOUNDED_JSON_MARK] = {"maxDepth": self.max_depth, **size}
        return value

    def check(self, value: Any) -> Any:
        """``value`` unchanged if it is within the bounds; else a ValueError saying which."""
        stack: list[tuple[Any, int]] = [(value, 0)]
        while stack:
            item, depth = stack.pop()
            if isinstance(item, dict | list):
                if depth >= self.max_depth:
                    raise ValueError(f"nested deeper than {self.max_depth} levels")
                if isinstance(item, dict):
                    for key in item:
                        _utf8(key, "a key")
                    stack.extend((v, depth + 1) for v in item.values())
                else:
                    stack.extend((v, depth + 1) for v in item)
            elif isinstance(item, str):
                _utf8(item, "a string")
            elif isinstance(item, bool) or item is None:
                continue
            elif isinstance(item, int):
                if not JSON_MIN_INT <= item <= JSON_MAX_INT:
                    raise ValueError("an integer outside the signed 64-bit range")
            elif isinstance(item, float):
                if not math.isfinite(item):
                    raise ValueError("a number that is not finite (NaN or Infinity is not JSON)")
            else:
                raise ValueError(f"not a JSON value ({type(item).__name__})")
        if self.max_chars is not None:
            chars = len(compact_json(value))
            if chars > self.max_chars:
                raise ValueError(f"{chars} characters as compact JSON; at most {self.max_chars}")
            return value
        size = len(json.dumps(value, ensure_ascii=False).encode())
        if size > self.max_bytes:
            raise ValueError(f"{size} bytes as JSON; at most {self.max_bytes}")
        return value


def _utf8(text: str, what: str) -> None:
    try:
        text.encode()
    except UnicodeEncodeError:
        raise ValueError(f"{what} holds a lone surrogate: it is not UTF-8") from None


#: Any JSON value, bounded (see :class:`JsonBounds`): the type of every free-form field.
BoundedJson = Annotated[Any, JsonBounds()]


def compact_json(value: Any) -> str:
    """``value`` as compact JSON text: no spaces, characters as they are, keys in the order
    given (what a payload kept exactly is stored as, and measured by)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


#: A payload kept exactly as sent (a note's or a message's ``data``): any JSON value, at most
#: :data:`DATA_MAX_DEPTH` deep and :data:`DATA_MAX_CHARS` characters as compact JSON; null
#: (or absent) means none. Stored as its compact text, never embedded nor searched.
Data = Annotated[Any, JsonBounds(max_depth=DATA_MAX_DEPTH, max_chars=DATA_MAX_CHARS)]


def data_text(value: Any) -> str | None:
    """What the domain keeps of a ``data`` field: its compact JSON text, ``None`` for none."""
    return None if value is None else compact_json(value)
