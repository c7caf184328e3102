"""Saved sessions (the wiki): each session's page, its insights, and the list of pages."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query
from fastapi.responses import JSONResponse

from api.deps import PrincipalDep, ServicesDep
from api.dto.continuity import session_save
from api.pages import PagesDep
from api.routes.continuity.sessions import SessionId
from ctxnet.wire.base import Id, dump
from ctxnet.wire.continuity.wiki import SessionSaveIn, WikiPageListOut, WikiPageOut, WikiSavedOut
from ctxnet.wire.cursors import TIMED, TimedCursor
from ctxnet.wire.errors import BODY, answers

router = APIRouter()


@router.post(
    "/sessions/{id}/save",
    status_code=201,
    response_model=WikiSavedOut,
    responses=answers(404, *BODY, also=(200, "saved before: rewritten, or unchanged", WikiSavedOut)),
)
async def save_session(
    id: SessionId,  # noqa: A002 - the API's name
    body: SessionSaveIn,
    principal: PrincipalDep,
    services: ServicesDep,
) -> JSONResponse:
    """Save a session as its wiki page: summary, decisions, learnings, open questions and 3-5
    typed insights (stored as insights, with the page as their provenance). An insight listed
    twice (the same type and content) is saved once, as saving it again later keeps it. The
    slug is stable across saves; the agent's newest saved page is its next catch-up cutoff."""
    page, outcome = await services.wiki.save(principal, id, session_save(body))
    out = WikiSavedOut.model_validate({"page": page, "outcome": outcome})
    return JSONResponse(dump(out), status_code=201 if outcome == "created" else 200)


@router.get("/wiki", response_model=WikiPageListOut, response_model_by_alias=True, responses=answers(422))
async def list_wiki(
    principal: PrincipalDep,
    pages: PagesDep,
    services: ServicesDep,
    agent_id: Annotated[Id | None, Query(alias="agentId")] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    cursor: TimedCursor | None = None,
) -> JSONResponse:
    """Saved session pages, newest save first (one agent's, with `agentId`)."""
    items, next_cursor = await pages.fit(
        limit, lambda n: services.wiki.list_pages(principal, agent_id=agent_id, limit=n, cursor=cursor)
    )
    return JSONResponse(
        dump(WikiPageListOut.model_validate({"items": items, "nextCursor": TIMED.wire(next_cursor)}))
    )


@router.get("/wiki/{slug}", response_model=WikiPageOut, response_model_by_alias=True, responses=answers(404))
async def get_wiki_page(
    slug: Annotated[Id, Path(description="The page's slug.")], principal: PrincipalDep, services: ServicesDep
) -> JSONResponse:
    """One saved session page, with its markdown."""
    return JSONResponse(dump(WikiPageOut.model_validate(await services.wiki.get(principal, slug))))
