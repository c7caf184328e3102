"""One search over the caller's knowledge, with graph-aware expansion."""

from __future__ import annotations

from fastapi import APIRouter

from api.deps import PrincipalDep, ServicesDep
from api.dto import SearchIn, SearchOut
from api.responses import FastJSONResponse

router = APIRouter(tags=["search"])


@router.post("/search", response_model=SearchOut)
async def search(body: SearchIn, principal: PrincipalDep, services: ServicesDep) -> FastJSONResponse:
    """Top-k notes (vector, fulltext or hybrid), expanded along typed edges to ``maxDepth``."""
    result = await services.knowledge.search(principal, body.to_domain())
    # The service already builds the documented shape (camelCase, no empty optional fields);
    # validating dozens of notes again through SearchOut cost a tenth of a search.
    return FastJSONResponse(result)
