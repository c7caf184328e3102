"""How the Python client talks to the API, whatever it calls: where and who (URL, key,
session), a :class:`Call` and whether a 503 may send it again (:func:`resendable`), waiting
out 429 and 503 (:func:`wait_before`), answers read as the API's models or raised as
errors (:class:`ApiError` and a subclass per status; :class:`Proposed` for a write a
person's correction holds back, 202), and listings followed page after page.

:class:`BaseClient` and :class:`AsyncBaseClient` hold that mechanics;
:class:`~ctxnet.client.Client` and :class:`~ctxnet.client.AsyncClient` add the API's calls by
name on top (``ctxnet.client``'s docstring says what each rule means for a caller).
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel

from ctxnet.wire.knowledge.proposals import ProposalOut

M = TypeVar("M", bound=BaseModel)
#: A request body: one of the API's request models, or a dict in its camelCase.
Body = BaseModel | Mapping[str, Any]

DEFAULT_URL = "http://127.0.0.1:8000"
#: Statuses worth waiting for: the service says so itself (``Retry-After``).
RETRIED = frozenset({429, 503})
#: Methods that change nothing when sent twice (PATCH sets fields to the values given).
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "PATCH", "DELETE"})
#: POSTs that only read, or whose writes are keyed by what the body names (an edge by its
#: ends and type, an acknowledgement by its target and session).
IDEMPOTENT_POSTS = (
    "/v1/search",
    "/v1/search/unified",
    "/v1/context/user",
    "/v1/orient",
    "/v1/catch-up",
    "/v1/brief",
    "/v1/connections/batch",
)
#: Body fields by which a write names what it makes, so a second send finds it made.
CLIENT_KEYS = ("id", "position")


# --- errors ---------------------------------------------------------------------------------
class ApiError(Exception):
    """An answer of the API that is an error: its HTTP status, error code, message and the
    field it names (if any)."""

    def __init__(self, status: int, code: str, message: str, field: str | None, body: Any = None) -> None:
        super().__init__(f"{status} {code}: {message}" + (f" (field {field})" if field else ""))
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.body = body


class InvalidInput(ApiError):
    """422: the request is not valid; ``field`` names what."""


class Unauthenticated(ApiError):
    """401: no key, or not one the service knows."""


class Forbidden(ApiError):
    """403: the key may not do this (an agent deciding a proposal; a scoped key)."""


class NotFound(ApiError):
    """404: none of the caller's things has that id."""


class Conflict(ApiError):
    """409: the id is taken otherwise, or the change is not safe now."""


class TooLarge(ApiError):
    """413: the body is over its route's limit."""


class RateLimited(ApiError):
    """429: over the key's rate limit (raised once the retries are spent)."""


class Unavailable(ApiError):
    """503: the database is away (raised once the retries are spent)."""


class Proposed(ApiError):
    """202 on a write: not applied, since it would override a person's correction; it waits
    as ``proposal`` for a person to approve or reject."""

    def __init__(self, proposal: ProposalOut) -> None:
        super().__init__(202, "proposed", "the write waits as a proposal for a person", None)
        self.proposal = proposal


_ERRORS: dict[int, type[ApiError]] = {
    401: Unauthenticated,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    413: TooLarge,
    422: InvalidInput,
    429: RateLimited,
    503: Unavailable,
}


def error_of(response: httpx.Response) -> ApiError:
    """The exception for an error answer, from the API's error body."""
    try:
        body = response.json()
        error = body["error"]
        code, message, field = str(error["code"]), str(error["message"]), error.get("field")
    except (ValueError, KeyError, TypeError):
        body, code, message, field = response.text, "http_error", response.text[:500], None
    return _ERRORS.get(response.status_code, ApiError)(response.status_code, code, message, field, body)


# --- calls ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Call:
    """One request: method, path, JSON body, query parameters; ``idempotent`` overrides
    whether a 503 may send it again (:func:`resendable`)."""

    method: str
    path: str
    json: Any = None
    params: Mapping[str, Any] | None = None
    idempotent: bool | None = None


def resendable(call: Call) -> bool:
    """Whether sending ``call`` twice changes nothing more than sending it once: what a 503
    (maybe a commit cut off mid-way) may send again."""
    if call.idempotent is not None:
        return call.idempotent
    method = call.method.upper()
    if method in IDEMPOTENT_METHODS:
        return True
    if method != "POST":
        return False
    path = call.path.split("?", 1)[0].rstrip("/")
    if path in IDEMPOTENT_POSTS or path.endswith(("/ack", "/connections", "/load")):
        return True
    return _keyed(call.json)


def _keyed(body: Any) -> bool:
    """A body that names what it creates: an ``id`` (or ``position``), or a list of
    ``items`` that each do."""
    if not isinstance(body, Mapping):
        return False
    if any(body.get(key) is not None for key in CLIENT_KEYS):
        return True
    items = body.get("items")
    return bool(items) and isinstance(items, list) and all(_keyed(item) for item in items)


def retried(call: Call, status: int) -> bool:
    """Whether an answer of ``status`` to ``call`` is worth waiting out and sending again."""
    return status in RETRIED and (status != 503 or resendable(call))


def body(value: Body | None) -> Any:
    """A request body as JSON: a model by its aliases (camelCase), unset fields left out."""
    if value is None:
        return None
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dict(value)


def seg(value: str) -> str:
    """An id as one URL path segment, whatever it holds."""
    return quote(str(value), safe="")


def params(**values: Any) -> dict[str, Any]:
    """Query parameters without the unset ones."""
    return {k: v for k, v in values.items() if v is not None}


def default_key(url: str) -> str | None:
    """``CTXNET_API_KEY``, else (for the local API only) the development key."""
    key = os.environ.get("CTXNET_API_KEY")
    if key:
        return key
    if url.rstrip("/") != DEFAULT_URL:
        return None
    from graph.core.settings import Settings  # only when needed: it reads the environment

    path = Path(Settings().data_dir) / "dev-api-key"
    return path.read_text().strip() if path.exists() else None


def where(url: str | None, key: str | None, session_id: str | None) -> tuple[str, dict[str, str]]:
    """The API's URL and the headers of every call, from the arguments or the environment."""
    resolved = (url or os.environ.get("CTXNET_API_URL") or DEFAULT_URL).rstrip("/")
    return resolved, headers(key or default_key(resolved), session_id)


def headers(key: str | None, session_id: str | None) -> dict[str, str]:
    """The headers of every call."""
    sent = {"Accept": "application/json"}
    if key:
        sent["Authorization"] = f"Bearer {key}"
    if session_id:
        sent["X-Session-ID"] = session_id
    return sent


def wait_before(response: httpx.Response, attempt: int, backoff: float) -> float:
    """Seconds to wait before trying again: ``Retry-After`` when the API gives one, else an
    exponential backoff with full jitter (capped at 30 s)."""
    given = response.headers.get("retry-after")
    if given:
        try:
            return min(float(given), 60.0)
        except ValueError:
            pass
    return random.uniform(0, min(30.0, backoff * 2**attempt))  # noqa: S311 - jitter, not secrecy


def parsed(response: httpx.Response, model: type[M]) -> M:
    """The answer as ``model``; an error answer raises it, a 202 proposal raises :class:`Proposed`."""
    if response.status_code >= 400:
        raise error_of(response)
    data = response.json()
    if response.status_code == 202 and isinstance(data, dict) and "proposal" in data:
        raise Proposed(ProposalOut.model_validate(data["proposal"]))
    return model.model_validate(data)


def with_created(response: httpx.Response, model: type[M]) -> M:
    """``model`` of a create's answer, with ``created`` from its status (201 or 200)."""
    data = response.json() if response.status_code in (200, 201) else None
    if data is None:
        return parsed(response, model)
    return model.model_validate(data | {"created": response.status_code == 201})


# --- the clients' mechanics ------------------------------------------------------------------
class BaseClient:
    """The API, synchronously: sending with retries, answers read, pages followed (the calls
    by name are :class:`~ctxnet.client.Client`'s). Use as a context manager, or call :meth:`close`."""

    def __init__(
        self,
        url: str | None = None,
        key: str | None = None,
        *,
        session_id: str | None = None,
        retries: int = 5,
        backoff: float = 0.5,
        timeout: float = 60.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.url, sent = where(url, key, session_id)
        self._http = httpx.Client(base_url=self.url, headers=sent, timeout=timeout, transport=transport)
        self._retries = retries
        self._backoff = backoff

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connections."""
        self._http.close()

    def send(self, call: Call, headers: Mapping[str, str] | None = None) -> httpx.Response:
        """Send one call (with extra ``headers``), waiting and trying again on 429, and on 503
        when the call is :func:`resendable`."""
        for attempt in range(self._retries + 1):
            response = self._http.request(
                call.method, call.path, json=call.json, params=call.params, headers=headers
            )
            if not retried(call, response.status_code) or attempt == self._retries:
                return response
            time.sleep(wait_before(response, attempt, self._backoff))
        raise AssertionError("unreachable")  # pragma: no cover

    def request(self, call: Call, model: type[M]) -> M:
        """Send a call and read its answer as ``model``."""
        return parsed(self.send(call), model)

    def request_json(
        self, method: str, path: str, json: Any = None, params: Mapping[str, Any] | None = None
    ) -> Any:
        """Any call of the API, its answer as plain JSON (errors raised as for the others)."""
        response = self.send(Call(method, path, json, params))
        if response.status_code >= 400:
            raise error_of(response)
        return response.json() if response.content else None

    def iter_json(self, path: str, **query: Any) -> Iterator[dict[str, Any]]:
        """Every item of a listing as plain JSON, page after page (``nextCursor``)."""
        cursor: str | None = None
        while True:
            page = self.request_json("GET", path, params=params(**query, cursor=cursor))
            yield from page.get("items", [])
            if not (cursor := page.get("nextCursor")):
                return

    def paginate(self, path: str, item: type[M], **query: Any) -> Iterator[M]:
        """Every item of a listing as ``item``, page after page."""
        for value in self.iter_json(path, **query):
            yield item.model_validate(value)


class AsyncBaseClient:
    """The API, asynchronously: the same mechanics as :class:`BaseClient`, awaited."""

    def __init__(
        self,
        url: str | None = None,
        key: str | None = None,
        *,
        session_id: str | None = None,
        retries: int = 5,
        backoff: float = 0.5,
        timeout: float = 60.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.url, sent = where(url, key, session_id)
        self._http = httpx.AsyncClient(base_url=self.url, headers=sent, timeout=timeout, transport=transport)
        self._retries = retries
        self._backoff = backoff

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connections."""
        await self._http.aclose()

    async def send(self, call: Call, headers: Mapping[str, str] | None = None) -> httpx.Response:
        """Send one call (with extra ``headers``), waiting and trying again on 429, and on 503
        when the call is :func:`resendable`."""
        for attempt in range(self._retries + 1):
            response = await self._http.request(
                call.method, call.path, json=call.json, params=call.params, headers=headers
            )
            if not retried(call, response.status_code) or attempt == self._retries:
                return response
            await asyncio.sleep(wait_before(response, attempt, self._backoff))
        raise AssertionError("unreachable")  # pragma: no cover

    async def request(self, call: Call, model: type[M]) -> M:
        """Send a call and read its answer as ``model``."""
        return parsed(await self.send(call), model)

    async def request_json(
        self, method: str, path: str, json: Any = None, params: Mapping[str, Any] | None = None
    ) -> Any:
        """Any call of the API, its answer as plain JSON (errors raised as for the others)."""
        response = await self.send(Call(method, path, json, params))
        if response.status_code >= 400:
            raise error_of(response)
        return response.json() if response.content else None

    async def iter_json(self, path: str, **query: Any) -> AsyncIterator[dict[str, Any]]:
        """Every item of a listing as plain JSON, page after page (``nextCursor``)."""
        cursor: str | None = None
        while True:
            page = await self.request_json("GET", path, params=params(**query, cursor=cursor))
            for value in page.get("items", []):
                yield value
            if not (cursor := page.get("nextCursor")):
                return

    async def paginate(self, path: str, item: type[M], **query: Any) -> AsyncIterator[M]:
        """Every item of a listing as ``item``, page after page."""
        async for value in self.iter_json(path, **query):
            yield item.model_validate(value)
