"""What every DTO of API v1 shares: camelCase on the wire, strict input, lenient output.

DTOs live in ``api/dto/<domain>.py``, one module per domain as in ``graph/``; each has a
``to_domain()`` where the domain takes a model of its own.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


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
