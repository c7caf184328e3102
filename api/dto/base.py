"""What every DTO of API v1 shares: camelCase on the wire, strict input, lenient output.

DTOs live in ``api/dto/<domain>.py``, one module per domain as in ``graph/``; each has a
``to_domain()`` where the domain takes a model of its own.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.alias_generators import to_camel
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, core_schema

#: How deep a free-form JSON value may nest (objects and arrays), by default.
JSON_MAX_DEPTH = 20
#: How large it may be as UTF-8 JSON, by default.
JSON_MAX_BYTES = 16_384
#: Integers Neo4j can store: signed 64 bits.
JSON_MIN_INT, JSON_MAX_INT = -(2**63), 2**63 - 1
#: The OpenAPI extension that marks a bounded free-form field (what the guard test reads).
BOUNDED_JSON_MARK = "x-bounded-json"


class CamelModel(BaseModel):
    """camelCase on the wire; unknown fields are an error (a typo must not be ignored)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


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


def unique_tags(values: list[str] | None) -> list[str] | None:
    """Tags stripped and without repeats, each 1-64 characters."""
    if values is None:
        return None
    cleaned: list[str] = []
    for value in values:
        tag = value.strip()
        if not tag or len(tag) > 64:
            raise ValueError("each tag must be 1-64 characters")
        if tag not in cleaned:
            cleaned.append(tag)
    return cleaned


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

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        """Check the bounds first, then validate as ``source``."""
        return core_schema.no_info_before_validator_function(self.check, handler(source))

    def __get_pydantic_json_schema__(
        self, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        """The inner type's schema, marked with its bounds (``x-bounded-json``)."""
        value = dict(handler(schema))
        value[BOUNDED_JSON_MARK] = {"maxDepth": self.max_depth, "maxBytes": self.max_bytes}
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
