"""JSON log lines carrying the request id, and the middleware that sets it."""

from __future__ import annotations

import json
import logging
import time
import uuid
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.metrics import record_request

request_id: ContextVar[str | None] = ContextVar("request_id", default=None)

_STANDARD = set(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {
    "message",
    "asctime",
    "color_message",
}


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, request id, extras."""

    def format(self, record: logging.LogRecord) -> str:
        """Render the record as JSON."""
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        rid = request_id.get()
        if rid is not None:
            entry["requestId"] = rid
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


def configure_logging(level: str = "INFO", fmt: str = "json") -> None:
    """Route the root logger (and uvicorn's) through one handler."""
    handler = logging.StreamHandler()
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error"):
        logging.getLogger(name).handlers[:] = []
        logging.getLogger(name).propagate = True
    # Our middleware logs every request with its id; uvicorn's access log would repeat it.
    logging.getLogger("uvicorn.access").disabled = True
    logging.getLogger("neo4j").setLevel(logging.WARNING)


access_log = logging.getLogger("ctxnet.access")


class RequestIdMiddleware:
    """Give every request an id (``X-Request-ID`` in, or a new one), echo it, log the request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """ASGI entry point."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        incoming = dict(scope.get("headers") or []).get(b"x-request-id", b"").decode("latin-1")
        rid = incoming[:64] if incoming else uuid.uuid4().hex
        token = request_id.set(rid)
        started = time.perf_counter()
        status = 500
        counted = False

        def count() -> float:
            nonlocal counted
            seconds = time.perf_counter() - started
            if not counted:
                counted = True
                record_request(scope, status, seconds)
            return seconds

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                count()  # before the last of the body: a client that has its answer finds it counted
            if message["type"] == "http.response.start":
                status = message["status"]
                message.setdefault("headers", [])
                elapsed_ms = (time.perf_counter() - started) * 1000
                message["headers"] = [
                    *message["headers"],
                    (b"x-request-id", rid.encode("latin-1")),
                    (b"server-timing", f"app;dur={elapsed_ms:.2f}".encode("latin-1")),
                ]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            seconds = count()
            access_log.info(
                "%s %s %d",
                scope.get("method"),
                scope.get("path"),
                status,
                extra={
                    "method": scope.get("method"),
                    "path": scope.get("path"),
                    "status": status,
                    "durationMs": round(seconds * 1000, 2),
                },
            )
            request_id.reset(token)
