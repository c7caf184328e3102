"""The one error body of API v1, and what each status means, for the OpenAPI document.

Routes document every status they can answer with :func:`answers`; the handlers in
``api.errors`` are what actually produce these bodies.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class ErrorDetailOut(BaseModel):
    """One problem of an invalid request (422)."""

    field: str | None = Field(
        description="The field, dotted (items.3.embedding); null for the whole request."
    )
    message: str
    type: str | None = None


class ErrorBodyOut(BaseModel):
    """What went wrong, for machines (``code``) and people (``message``)."""

    code: str = Field(description="Stable name: invalid_input, not_found, conflict, unauthenticated, ...")
    message: str
    field: str | None = Field(default=None, description="The request field at fault, if one is.")
    details: list[ErrorDetailOut] | None = Field(default=None, description="Every problem (422 only).")
    blocking_mutation: str | None = Field(
        default=None,
        alias="blockingMutation",
        description="The journal entry that makes an undo unsafe (409 of an undo only).",
    )


class ErrorOut(BaseModel):
    """Every error answer of API v1."""

    error: ErrorBodyOut


#: What each error status means, as the document says it.
MEANING = {
    401: "no API key, or one that is unknown or revoked",
    403: "this key may not do this: its role (only a person decides a proposal) or its entity scope",
    404: "no such thing for this user (another user's ids are not found either)",
    409: "the write clashes with what is stored",
    413: "the body is larger than this route's limit",
    415: "the body is not JSON",
    422: "invalid input; `field` names it, `details` lists every problem",
    429: "this API key's rate limit is reached; retry after `Retry-After` seconds",
    502: "the embedder failed",
    503: "the database is unavailable; retry shortly (`Retry-After`)",
}

#: What every call under /v1 may answer (429 only when rate limits are configured).
V1 = (401, 422, 429, 503)
#: What a call with a JSON body may answer besides.
BODY = (413, 415)


def answers(
    *statuses: int,
    also: tuple[int, str, type[BaseModel]] | list[tuple[int, str, type[BaseModel]]] | None = None,
) -> dict[int | str, dict[str, Any]]:
    """``responses=`` for a route: each error status with the error body, and ``also`` the
    other success statuses (200 beside a 201, a 202 proposal) with their meaning and body."""
    documented: dict[int | str, dict[str, Any]] = {
        status: {"model": ErrorOut, "description": MEANING[status]} for status in statuses
    }
    for status, description, model in [also] if isinstance(also, tuple) else also or []:
        documented[status] = {"model": model, "description": description}
    return documented
