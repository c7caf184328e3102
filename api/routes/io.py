"""A whole user out and back: ``GET /v1/export/all`` and ``/v1/restore`` (``docs/import.md``,
"A whole user, out and back"). A person's action: an agent's key gets 403, as does a
scoped key."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse

from api.deps import PrincipalDep, ServicesDep
from ctxnet.wire.base import dump
from ctxnet.wire.errors import BODY, answers
from ctxnet.wire.io import (
    ExportPageOut,
    RestoreBatchIn,
    RestoreBatchOut,
    RestoreDiscardedOut,
    RestoredOut,
    RestoreFinishIn,
    RestoreIn,
    RestoreStateOut,
)
from graph.io.dump import CURSOR

router = APIRouter(tags=["export and restore"], responses=answers(403))


@router.get("/export/all", response_model=ExportPageOut, responses=answers(409))
async def export_all(
    principal: PrincipalDep,
    services: ServicesDep,
    cursor: Annotated[
        str | None, Query(pattern=CURSOR.pattern, description="`nextCursor` of the page before.")
    ] = None,
) -> JSONResponse:
    """Everything your user owns, a page at a time (each under 512 KB): a header, then every
    node with its labels and all its properties (vectors, the journal, times exact), then
    every relationship between them. API keys, rate counters and background jobs are left
    out. Read at one write sequence: a write of yours between two pages is a 409 (export
    again). `ctxnet export --all` writes it as JSONL."""
    items, cursor = await services.user_dump.page(principal, cursor)
    # Records are plain JSON already (graph/io/format.py): not walked again by a model.
    return JSONResponse({"items": items} | ({"nextCursor": cursor} if cursor else {}))


@router.get("/restore", response_model=RestoreStateOut)
async def restore_state(principal: PrincipalDep, services: ServicesDep) -> JSONResponse:
    """The restore under way for your user, if any: which, from whom, how far."""
    return JSONResponse(dump(RestoreStateOut.model_validate(await services.user_restore.state(principal))))


@router.post("/restore", status_code=201, response_model=RestoreStateOut, responses=answers(409, *BODY))
async def restore_begin(body: RestoreIn, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:
    """Begin restoring an export of `GET /v1/export/all` into your user, which must hold
    nothing (409 names what it holds); a file of another format is a 422. From now until
    the restore finishes or is discarded, every other write of your user is refused (409)."""
    header = body.header.model_dump(by_alias=True, exclude_none=True)
    begun = await services.user_restore.begin(principal, header, body.sha256, body.records)
    return JSONResponse(dump(RestoreStateOut.model_validate({"restoring": True} | begun)), status_code=201)


@router.post("/restore/batches", response_model=RestoreBatchOut, responses=answers(404, 409, *BODY))
async def restore_batch(body: RestoreBatchIn, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:
    """Write the file's next records (`offset`: the first one's place). A batch sent again is
    written once; one out of order is a 409 naming where the next starts."""
    records = [r.model_dump(exclude_none=True) for r in body.records]
    done = await services.user_restore.batch(principal, body.restore_id, body.offset, records)
    return JSONResponse(dump(RestoreBatchOut.model_validate(done)))


@router.post("/restore/finish", response_model=RestoredOut, responses=answers(404, 409, *BODY))
async def restore_finish(
    body: RestoreFinishIn, principal: PrincipalDep, services: ServicesDep
) -> JSONResponse:
    """End a restore whose every record was written: checks the counts against the header,
    gives your user the exported write sequence and journals the restore as one `user.restore`
    entry numbered after the restored journal."""
    return JSONResponse(
        dump(RestoredOut.model_validate(await services.user_restore.finish(principal, body.restore_id)))
    )


@router.delete("/restore", response_model=RestoreDiscardedOut, responses=answers(404))
async def restore_discard(principal: PrincipalDep, services: ServicesDep) -> JSONResponse:
    """Discard an unfinished restore: delete what it wrote; your user is empty again."""
    return JSONResponse(
        dump(RestoreDiscardedOut.model_validate(await services.user_restore.discard(principal)))
    )
