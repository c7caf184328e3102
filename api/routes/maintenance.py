"""Maintenance of the caller's memory as background jobs: consolidate insights, validate
connections, archive superseded decisions (``docs/maintenance.md``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path
from fastapi.responses import JSONResponse

from api.deps import PrincipalDep, ServicesDep
from ctxnet.wire.base import dump
from ctxnet.wire.conversations import JobStarted
from ctxnet.wire.errors import BODY, answers
from ctxnet.wire.maintenance import MaintenanceIn

router = APIRouter(tags=["maintenance"], responses=answers(403))

Task = Annotated[
    str,
    Path(
        description="`consolidate`, `validate-connections`, `archive-superseded` or `judge` (another "
        "name: 404).",
        max_length=64,
    ),
]


@router.post(
    "/maintenance/{task}", status_code=202, response_model=JobStarted, responses=answers(404, 409, *BODY)
)
async def start_maintenance(
    task: Task, principal: PrincipalDep, services: ServicesDep, body: MaintenanceIn | None = None
) -> JSONResponse:
    """Start a maintenance task over your memory as a job; poll `GET /v1/jobs/{jobId}`, whose
    `counts` and `report` say what it found and changed (in a dry run, what it would change).
    `consolidate`: every thread's insights above the threshold become knowledge.
    `validate-connections`: removes edges to things that are not your notes, breaks loops of
    supersedes edges at their newest edge, and reports conflicts between superseded notes
    and notes superseded only by archived ones. `archive-superseded`: decisions superseded
    more than `olderThanDays` days ago become archived. `judge` (with a chat model configured,
    `CTXNET_LLM_MODEL`; else 409, but its dry run lists what a model would be asked): the note
    pairs the update rule left undecided and the threads a new decision's notice nearly reached,
    since the last judging, put to the model and its answers applied (it also runs by itself
    after creates). Safe to run again: a second run changes nothing. A person's correction
    holds back an agent's change of a note's status (and the judge's change of a note a person
    wrote becomes a proposal).
    One job per task and user at a time: a start while one is queued or running answers that
    job (409 if it was started with another `dryRun` or `olderThanDays`)."""
    body = body or MaintenanceIn()
    job_id = await services.maintenance.start(
        principal, task, dry_run=body.dry_run, older_than_days=body.older_than_days
    )
    return JSONResponse(dump(JobStarted(job_id=job_id)), status_code=202)
