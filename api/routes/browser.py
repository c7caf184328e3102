"""Neo4j Browser's guide and style (no key: nothing in them is a user's).

``:play <url>`` and ``:style <url>`` in Browser fetch these from Browser's own page, which
Neo4j serves on another port: a cross-origin request, so the answers carry CORS headers, and
the guide's fetch (it sends ``Cache-Control`` and ``Pragma``) is preflighted with ``OPTIONS``.
They are files for people in Browser, not operations agents call: left out of the OpenAPI
contract, like static assets.
"""

from __future__ import annotations

import re

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse, PlainTextResponse

from graph.core.browser_guide import GUIDE_PATH, STYLE_PATH, render_guide, style_text, style_url

public = APIRouter(include_in_schema=False)

#: Any origin may read them: Browser's page is on Neo4j's port (or browser.neo4j.io, or a
#: desktop app), and the fetch sends no credentials.
CORS = {"Access-Control-Allow-Origin": "*"}
PREFLIGHT = {
    **CORS,
    "Access-Control-Allow-Methods": "GET, OPTIONS",
    # Chromium asks this before a page on a private address fetches from loopback.
    "Access-Control-Allow-Private-Network": "true",
    "Access-Control-Max-Age": "600",
}
#: Browser's fetch sends Cache-Control and Pragma, and, with its error reporting on (until it
#: has read the server's settings), Sentry's trace headers too: whatever it asks for is allowed.
BASE_HEADERS = "Cache-Control, Pragma, Content-Type"
HEADER_NAMES = re.compile(r"^[A-Za-z0-9!#$%&'*+.^_`|~-]+(\s*,\s*[A-Za-z0-9!#$%&'*+.^_`|~-]+)*$")


@public.get(GUIDE_PATH)
async def guide(request: Request) -> HTMLResponse:
    """The guide, with a block that loads the style from this same API."""
    return HTMLResponse(render_guide(style_url(str(request.base_url))), headers=CORS)


@public.get(STYLE_PATH)
async def style() -> PlainTextResponse:
    """The Browser style (GRASS)."""
    return PlainTextResponse(style_text(), headers=CORS)


@public.options(GUIDE_PATH)
@public.options(STYLE_PATH)
async def preflight(request: Request) -> Response:
    """The CORS preflight of Browser's fetch."""
    asked = request.headers.get("access-control-request-headers", "").strip()
    allowed = f"{BASE_HEADERS}, {asked}" if asked and HEADER_NAMES.match(asked) else BASE_HEADERS
    return Response(status_code=204, headers={**PREFLIGHT, "Access-Control-Allow-Headers": allowed})
