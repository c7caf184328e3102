"""What a request body must be before any route sees it: JSON, and not too large.

A pure ASGI middleware (no per-request task or copy for bodies within the limit):

* a request with a body on a JSON API must say ``Content-Type: application/json`` (or a
  ``+json`` type): anything else is a 415, whatever the body looks like (the desk's HTML
  forms under ``/desk/`` post ``application/x-www-form-urlencoded``);
* a body larger than the limit is a 413: refused from ``Content-Length`` before a byte is
  read, or, for a chunked body, as soon as it passes the limit. The batch routes (1,000
  notes with 384-dim vectors are ~9 MB) have a limit of their own, larger than the rest's.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.errors import error_body

_WITH_BODY = frozenset({"POST", "PUT", "PATCH"})


def _is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


def _desk_form(path: str, headers: dict[str, str]) -> bool:
    """The desk's pages post HTML forms (``api/desk``), not JSON."""
    media = headers.get("content-type", "").split(";", 1)[0].strip().lower()
    return path.startswith("/desk/") and media == "application/x-www-form-urlencoded"


class TooLarge(HTTPException):
    """The body passed the limit while it was being read: a 413, answered by the app's
    HTTP error handler wherever the read happened (FastAPI re-raises HTTP exceptions)."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, too_large(limit))


#: Routes whose bodies may be as large as ``max_batch_body_bytes``.
BATCH_PATHS = frozenset({"/v1/knowledge/batch", "/v1/connections/batch"})


class BodyLimits:
    """415 for bodies that are not JSON, 413 for bodies over the limit of their route."""

    def __init__(self, app: ASGIApp, max_body_bytes: int, max_batch_body_bytes: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.max_batch_body_bytes = max_batch_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in _WITH_BODY:
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        length = headers.get("content-length")
        chunked = "chunked" in headers.get("transfer-encoding", "").lower()
        has_body = chunked or (length is not None and length.strip() not in ("", "0"))
        if not has_body:
            await self.app(scope, receive, send)
            return
        if not _is_json(headers.get("content-type", "")) and not _desk_form(scope["path"], headers):
            await _refuse(
                send,
                415,
                "unsupported_media_type",
                "send the body as JSON with 'Content-Type: application/json'",
            )
            return
        limit = self.max_batch_body_bytes if scope["path"] in BATCH_PATHS else self.max_body_bytes
        if length is not None and length.strip().isdigit() and int(length) > limit:
            await _refuse(send, 413, "payload_too_large", too_large(limit))
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise TooLarge(limit)
            return message

        await self.app(scope, counted, send)


def too_large(limit: int) -> str:
    """The message of a 413."""
    return f"the body is larger than this route's limit of {limit} bytes"


async def _refuse(send: Send, status: int, code: str, message: str) -> None:
    body = json.dumps(error_body(code, message)).encode()
    headers: list[Any] = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
