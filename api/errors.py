"""Exception handlers: the only place HTTP status codes are chosen.

Every error body is ``{"error": {"code", "message", "field"}}`` (``details`` too for
request validation, listing every problem).
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from graph.core import errors

log = logging.getLogger(__name__)

STATUS: dict[type[errors.ContextNetworkError], int] = {
    errors.InvalidInput: 422,
    errors.NotFound: 404,
    errors.Conflict: 409,
    errors.Unauthenticated: 401,
    errors.Forbidden: 403,
    errors.RateLimited: 429,
    errors.DatabaseUnavailable: 503,
    errors.SchemaMismatch: 503,
    errors.EmbeddingError: 502,
}


def error_body(code: str, message: str, field: str | None = None, **extra: Any) -> dict[str, Any]:
    """The one error shape of the API."""
    return {"error": {"code": code, "message": message, "field": field, **extra}}


def _status_for(exc: errors.ContextNetworkError) -> int:
    for cls in type(exc).__mro__:
        if cls in STATUS:
            return STATUS[cls]
    return 500


async def _domain_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, errors.ContextNetworkError)  # noqa: S101 - registered for this type only
    status = _status_for(exc)
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    if status == 503:
        headers = {"Retry-After": "5"}
    if isinstance(exc, errors.RateLimited):
        headers = {"Retry-After": str(exc.retry_after)}
    if status >= 500:
        log.warning("request failed: %s", exc.message, extra={"code": exc.code})
    extra = {}
    if isinstance(exc, errors.Conflict) and exc.blocking_mutation is not None:
        extra["blockingMutation"] = exc.blocking_mutation
    body = error_body(exc.code, exc.message, exc.field, **extra)
    return JSONResponse(body, status_code=status, headers=headers)


def _field_of(loc: tuple[Any, ...] | list[Any]) -> str | None:
    parts = [str(p) for p in loc]
    if parts and parts[0] in {"body", "query", "path", "header"}:
        parts = parts[1:]
    return ".".join(parts) or None


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)  # noqa: S101
    details = [
        {"field": _field_of(e.get("loc", ())), "message": e.get("msg", "invalid"), "type": e.get("type")}
        for e in exc.errors()
    ]
    first = details[0] if details else {"field": None, "message": "invalid request"}
    message = f"{first['field']}: {first['message']}" if first["field"] else str(first["message"])
    body = error_body("invalid_input", message, first["field"], details=details)
    return JSONResponse(body, status_code=422)


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)  # noqa: S101
    if exc.status_code == 400:
        return _unreadable_body(exc)
    codes = {
        404: "not_found",
        405: "method_not_allowed",
        401: "unauthenticated",
        413: "payload_too_large",
        415: "unsupported_media_type",
    }
    code = codes.get(exc.status_code, "http_error")
    headers = getattr(exc, "headers", None)
    if exc.status_code == 405:
        headers = {**(headers or {}), "Allow": _allowed_methods(request)}
    return JSONResponse(error_body(code, str(exc.detail)), status_code=exc.status_code, headers=headers)


def _allowed_methods(request: Request) -> str:
    """Every method of the request's path, over all the routes that serve it: Starlette's 405
    names only those of the first route whose path matched (``GET`` and ``PUT`` of one path
    are two routes), where ``Allow`` must list all of them."""
    methods: set[str] = set()
    for route in request.app.router.routes:
        regex, allowed = getattr(route, "path_regex", None), getattr(route, "methods", None)
        if regex is not None and allowed and regex.match(request.scope["path"]):
            methods |= allowed
    return ", ".join(sorted(methods))


def _unreadable_body(exc: StarletteHTTPException) -> JSONResponse:
    """FastAPI answers 400 to a JSON body it cannot parse for a reason other than its syntax
    (bytes that are not UTF-8, nesting deeper than the parser's recursion limit). To a
    client that is invalid JSON like any syntax error, so the same 422: no route documents
    a 400."""
    cause = exc.__cause__
    if isinstance(cause, UnicodeDecodeError):
        message = "the body is not valid JSON: it is not UTF-8"
    elif isinstance(cause, RecursionError):
        message = "the body is not valid JSON: it is nested too deeply"
    else:
        message = "the body is not valid JSON"
    details = [{"field": None, "message": message, "type": "json_invalid"}]
    return JSONResponse(error_body("invalid_input", message, details=details), status_code=422)


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    log.exception("unhandled error", exc_info=exc)
    return JSONResponse(error_body("internal_error", "internal error; see the service log"), status_code=500)


def install_error_handlers(app: FastAPI) -> None:
    """Register every handler on the app."""
    app.add_exception_handler(errors.ContextNetworkError, _domain_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _unexpected)
