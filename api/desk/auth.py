"""Signing in and out of the desk, and its static files (htmx from its package, the style)."""

from __future__ import annotations

from importlib import resources
from typing import Annotated

from fastapi import APIRouter, Form, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse

from api.deps import get_services
from api.desk.base import ENV, CsrfField, DeskDep, DeskRoute, store
from api.desk.signin import (
    COOKIE,
    PRE_COOKIE,
    SESSION_SECONDS,
    clear_cookie,
    cookie,
    csrf_token,
    new_signin_token,
    set_cookie,
    tokens_match,
)
from graph.core.errors import Forbidden, RateLimited, Unauthenticated
from graph.core.ratelimit import Allowance, SignInThrottle

router = APIRouter(prefix="/desk", include_in_schema=False, route_class=DeskRoute)

#: The files the pages load, read once: htmx from the django-js-lib-htmx wheel (htmx's own
#: build, no Django needed to read it), the style from this package.
STATIC = {
    "htmx.min.js": (resources.files("js_lib_htmx") / "static" / "htmx" / "htmx.min.js", "text/javascript"),
    "desk.css": (resources.files("api.desk") / "static" / "desk.css", "text/css"),
}


@router.get("/static/{name}")
async def static(name: str) -> Response:
    """htmx and the desk's style sheet, from the installed packages."""
    if name not in STATIC:
        return Response(status_code=404)
    path, media = STATIC[name]
    return Response(path.read_bytes(), media_type=media, headers={"Cache-Control": "max-age=3600"})


def _signin_page(
    request: Request, message: str | None = None, status: int = 200, headers: dict[str, str] | None = None
) -> HTMLResponse:
    token = new_signin_token()
    body = ENV.get_template("signin.html").render(
        csrf=csrf_token(token), message=message, desk=None, view=None
    )
    response = HTMLResponse(body, status_code=status, headers=headers)
    set_cookie(request, response, PRE_COOKIE, token, max_age=3600)
    return response


def throttle(request: Request) -> SignInThrottle:
    """This process's throttle of failed sign-ins (its counts are shared in Neo4j)."""
    found: SignInThrottle | None = getattr(request.app.state, "desk_throttle", None)
    if found is None:
        services = get_services(request)
        settings = services.settings
        found = SignInThrottle(
            services.db,
            per_client=Allowance(settings.desk_signin_client_failures, settings.desk_signin_client_seconds),
            per_user=Allowance(settings.desk_signin_user_failures, settings.desk_signin_user_seconds),
        )
        request.app.state.desk_throttle = found
    return found


@router.get("/sign-in")
async def signin_form(request: Request) -> HTMLResponse:
    """The sign-in form: one field, a person's API key."""
    return _signin_page(request)


@router.post("/sign-in")
async def signin(
    request: Request, key: Annotated[str, Form(max_length=200)], csrf: CsrfField = None
) -> Response:
    """Check the key, start a session, and forget the key. Failed attempts count against the
    client and the person; past their allowance, 429 with Retry-After, reading nothing."""
    pre = cookie(request, PRE_COOKIE)
    if not pre or not tokens_match(csrf_token(pre), csrf):
        return _signin_page(request, "The form expired; please try again.", status=403)
    client = request.client.host if request.client else "-"
    guard = throttle(request)
    try:
        guard.check(client, key.strip())
        try:
            secret, _ = await store(request).sign_in(key)
        except (Unauthenticated, Forbidden):
            await guard.failed(client, key.strip())
            raise
    except RateLimited as exc:
        headers = {"Retry-After": str(exc.retry_after)}
        return _signin_page(request, exc.message, status=429, headers=headers)
    except (Unauthenticated, Forbidden) as exc:
        return _signin_page(request, exc.message, status=403 if isinstance(exc, Forbidden) else 401)
    response = RedirectResponse("/desk/inbox", status_code=303)
    set_cookie(request, response, COOKIE, secret, max_age=SESSION_SECONDS)
    clear_cookie(request, response, PRE_COOKIE)
    return response


@router.post("/sign-out")
async def signout(desk: DeskDep, csrf: CsrfField = None) -> Response:
    """End the session (everywhere; the key that opened it keeps working) and drop the cookie."""
    desk.check(csrf)
    await store(desk.request).sign_out(desk.session)
    response = RedirectResponse("/desk/sign-in", status_code=303)
    clear_cookie(desk.request, response, COOKIE)
    return response


@router.get("")
@router.get("/")
async def home(desk: DeskDep) -> Response:
    """The inbox is where a person starts."""
    return RedirectResponse(desk.url("/inbox"), status_code=303)
