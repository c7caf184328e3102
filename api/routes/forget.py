"""Forgetting part of your memory: ``POST /v1/forget`` (``docs/forgetting.md``)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from api.deps import PrincipalDep, ServicesDep
from api.dto.forget import forget_match
from ctxnet.wire.base import dump
from ctxnet.wire.errors import BODY, answers
from ctxnet.wire.forget import ForgetIn, ForgetOut

router = APIRouter(tags=["forget"])


@router.post("/forget", response_model=ForgetOut, responses=answers(403, 409, *BODY))
async def forget(body: ForgetIn, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:
    """Forget what `match` reaches, from every path: search in every mode, recall, the
    context bridge, brief, orient, catch_up, unified search, exports, and the journal, whose
    entries of it stay in their place with `before` and `after` scrubbed (null, `scrubbed`
    true); its corrections and proposals go. A dry run (the default) lists what would go:
    counts per kind and a sample. A run above `limit` things is refused (409) unless
    `confirm` is true; it runs in batches, journaled as one `memory.forget` entry that names
    what went by id and kind, never its text; a second run of the same match finishes one
    cut short. A person's action: an agent's key gets 403, as does a scoped key."""
    answer = await services.forget.forget(
        principal, forget_match(body.match), dry_run=body.dry_run, limit=body.limit, confirm=body.confirm
    )
    return JSONResponse(dump(ForgetOut.model_validate(answer)))
