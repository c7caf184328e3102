"""What every desk page shares: the signed-in person, the agent view, the templates, the
counts in the header, and errors shown as pages with the status the API would answer."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import Depends, Form, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.routing import APIRoute
from jinja2 import Environment, FileSystemLoader, select_autoescape

from api.deps import Services, get_services
from api.desk.diff import budgeted, diff
from api.desk.signin import COOKIE, DeskSession, SessionStore, cookie, tokens_match
from api.errors import STATUS
from graph.core import errors
from graph.core.principals import Principal, Role
from graph.core.values import check_id

TEMPLATES = Path(__file__).resolve().parent / "templates"
ENV = Environment(
    loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html"]), enable_async=False
)
#: Every desk answer: no framing, no sniffing, no referrer leaving with ids in it, and only
#: this origin's scripts and styles.
SECURITY_HEADERS = {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'"
    ),
    "Cache-Control": "no-store",
}
#: How many proposals and corrections the header counts before it says "25+": each count
#: reads that many records through the services' lists (the desk has no Cypher of its own,
#: so no count query), and a page's fixed cost is mostly these two reads.
COUNT_CAP = 25
#: The sessions read for the agent picker (with the agents configured).
PICKER_SESSIONS = 20


def when(value: Any) -> str:
    """A stored time as a person reads it: ``2026-12-02 11:44 UTC``."""
    if value in (None, ""):
        return ""
    if isinstance(value, int | float):
        value = datetime.fromtimestamp(value / 1000, UTC).isoformat()
    text = str(value)
    try:
        return (
            datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
        )
    except ValueError:
        return text


def pretty_json(value: Any) -> str:
    """A payload (``data``) as a person reads it: indented JSON, characters as they are (the
    template escapes it like any text)."""
    return json.dumps(value, indent=2, ensure_ascii=False)


ENV.filters["when"] = when
ENV.filters["pretty_json"] = pretty_json
ENV.globals["diff"] = diff


async def render(template: str, context: dict[str, Any]) -> str:
    """A page's template rendered in a worker thread, not on the event loop: what a page
    shows grows with what agents stored (long texts, their diffs), and a page that took the
    loop would stall every request of the process. Its word diffs share one budget."""

    def rendered() -> str:
        budgeted()  # in the thread's copy of the context: this page's alone
        return ENV.get_template(template).render(context)

    return await asyncio.to_thread(rendered)


class DeskRoute(APIRoute):
    """A desk route: a domain error becomes a page with the status the API gives it (404 for
    another user's id), and a visitor without a session is sent to sign in."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        """The handler, wrapped."""
        handler = super().get_route_handler()

        async def guarded(request: Request) -> Response:
            try:
                response = await handler(request)
            except errors.Unauthenticated:
                if request.headers.get("hx-request"):
                    response = Response(status_code=401, headers={"HX-Redirect": "/desk/sign-in"})
                else:
                    response = RedirectResponse("/desk/sign-in", status_code=303)
            except errors.ContextNetworkError as exc:
                status = next((STATUS[c] for c in type(exc).__mro__ if c in STATUS), 500)
                response = problem(request, status, exc.message)
            finally:
                desk = getattr(request.state, "desk", None)
                if desk is not None:
                    desk.close()
            for name, value in SECURITY_HEADERS.items():
                response.headers.setdefault(name, value)
            return response

        return guarded


def problem(request: Request, status: int, message: str) -> HTMLResponse:
    """An error as a page (or, to htmx, as the fragment it swaps in)."""
    partial = request.headers.get("hx-request") and not request.headers.get("hx-boosted")
    name = "_problem.html" if partial else "problem.html"
    body = ENV.get_template(name).render(status=status, message=message, desk=None, view=None)
    return HTMLResponse(body, status_code=status)


@dataclass
class Desk:
    """One request of a signed-in person: their session, the services, the agent view."""

    request: Request
    services: Services
    session: DeskSession
    #: The agent whose view this is (``None``: the whole user).
    agent: str | None
    #: Reads more than one part of the page needs (the header's counts and the inbox's lists
    #: are the same read), each begun once, by name.
    _shared: dict[str, asyncio.Future[Any]] = field(default_factory=dict)

    @property
    def principal(self) -> Principal:
        """Who acts: the person."""
        return self.session.principal

    def as_agent(self) -> Principal:
        """The person's user as the agent of the view sees it (for what an agent is shown:
        its unacknowledged corrections, its bridge)."""
        return Principal(
            user_id=self.principal.user_id, role=Role.AGENT, agent_id=self.agent, scope=self.principal.scope
        )

    def url(self, path: str, **params: Any) -> str:
        """A desk link that keeps the agent view."""
        query = {k: v for k, v in {"agent": self.agent, **params}.items() if v not in (None, "")}
        return f"/desk{path}" + (f"?{urlencode(query)}" if query else "")

    async def page(self, template: str, status: int = 200, **context: Any) -> HTMLResponse:
        """A full page: the header with the inbox's counts and the agent picker, then
        ``template``."""
        counts, agents = await asyncio.gather(self.counts(), self.agents())
        shown = {
            "desk": self,
            "view": self.agent,
            "counts": counts,
            "agents": agents,
            "csrf": self.session.csrf,
        }
        return HTMLResponse(await render(template, shown | context), status_code=status)

    def fragment(self, template: str, status: int = 200, **context: Any) -> HTMLResponse:
        """A part of a page, for htmx to swap in."""
        body = ENV.get_template(template).render(
            desk=self, view=self.agent, csrf=self.session.csrf, **context
        )
        return HTMLResponse(body, status_code=status)

    def _once(self, name: str, read: Callable[[], Coroutine[Any, Any, Any]]) -> asyncio.Future[Any]:
        """The read ``name`` of this request, begun now unless it was already."""
        if name not in self._shared:
            self._shared[name] = asyncio.ensure_future(read())
        return self._shared[name]

    def begin_header(self) -> None:
        """Begin the header's reads (counts, agents), to run beside the page's own."""
        self.waiting()
        self.unacknowledged()
        self.agents()

    def close(self) -> None:
        """Cancel the reads nothing awaited (a page that failed, a redirect)."""
        for future in self._shared.values():
            if not future.done():
                future.cancel()
            elif not future.cancelled():
                future.exception()  # seen: an error the page did not need is not logged

    def waiting(self) -> asyncio.Future[list[dict[str, Any]]]:
        """Proposals waiting in the view (as many as the header counts; none for a scoped key)."""
        return self._once("waiting", self._waiting)

    async def _waiting(self) -> list[dict[str, Any]]:
        return await self.proposals(limit=COUNT_CAP) if self.principal.scope is None else []

    def unacknowledged(self) -> asyncio.Future[list[dict[str, Any]]]:
        """Corrections the view's agent (or any agent) has not acknowledged, as many as counted."""
        return self._once("unacknowledged", self._unacknowledged)

    async def _unacknowledged(self) -> list[dict[str, Any]]:
        items, _ = await self.services.knowledge.corrections.list_corrections(
            self.reader(), unacknowledged=True, limit=COUNT_CAP
        )
        return items

    async def counts(self) -> dict[str, str]:
        """Proposals waiting and corrections not acknowledged (of the view), capped."""
        waiting, corrections = await asyncio.gather(self.waiting(), self.unacknowledged())
        return {"proposals": capped(len(waiting)), "corrections": capped(len(corrections))}

    def reader(self) -> Principal:
        """Whose eyes a list of corrections is read with: the person's, or the view agent's."""
        return self.as_agent() if self.agent else self.principal

    async def proposals(self, limit: int) -> list[dict[str, Any]]:
        """Pending proposals, the view agent's only in an agent view."""
        items, _ = await self.services.knowledge.proposals.list_proposals(
            self.principal, status="pending", limit=limit
        )
        return [p for p in items if self.in_view(p.get("proposedBy"))]

    def in_view(self, actor: dict[str, Any] | None) -> bool:
        """Whether something done by ``actor`` (``{role, agentId, ...}``) is in the view."""
        return self.agent is None or (actor or {}).get("agentId") == self.agent

    def agents(self) -> asyncio.Future[list[str]]:
        """The agents to pick a view of: those configured, and those with sessions."""
        return self._once("agents", self._agents)

    async def _agents(self) -> list[str]:
        configured = [a.id for a in self.services.agents.configured()]
        sessions, _ = await self.services.sessions.list_sessions(self.principal, limit=PICKER_SESSIONS)
        seen = [s.get("agentId") for s in sessions]
        return sorted({a for a in [*configured, *seen, self.agent] if a})

    def check(self, token: str | None) -> None:
        """Refuse a form whose CSRF token is not this session's."""
        if not tokens_match(self.session.csrf, token or self.request.headers.get("x-csrf-token")):
            raise errors.Forbidden("the form's CSRF token is missing or not this session's; reload the page")


def capped(n: int) -> str:
    """A count as the header shows it."""
    return f"{COUNT_CAP}+" if n >= COUNT_CAP else str(n)


def store(request: Request) -> SessionStore:
    """The desk's sessions, on the API's keys."""
    return SessionStore(get_services(request).api_keys)


async def get_desk(request: Request, agent: str | None = None) -> Desk:
    """The signed-in person of this request (:class:`Unauthenticated` sends them to sign in)."""
    services = get_services(request)
    session = await store(request).resume(cookie(request, COOKIE))
    await services.rate_limiter.take(session.principal)
    desk = Desk(request, services, session, check_id(agent, "agent") if agent else None)
    request.state.desk = desk
    if request.method == "GET":  # every page a GET answers has the header: begin its reads
        desk.begin_header()
    return desk


DeskDep = Annotated[Desk, Depends(get_desk)]
#: The CSRF token every form posts.
CsrfField = Annotated[str | None, Form(alias="csrf")]
