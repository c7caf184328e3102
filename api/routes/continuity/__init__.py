"""Session continuity, one module per sub-domain as in ``graph/continuity/``: ``sessions`` (the
agents, sessions, their pending actions and the context bridge), the user ``profile``,
``goals``, ``skills``, each session's tool-call log (``toolcalls``), saved sessions (``wiki``)
and waking up (``wakeup``: catch_up, orient, brief).

:data:`router` holds them all, in this order (the order of the OpenAPI document's paths)."""

from __future__ import annotations

from fastapi import APIRouter

from api.routes.continuity import goals, profile, sessions, skills, toolcalls, wakeup, wiki

router = APIRouter(tags=["continuity"])
for part in (sessions, profile, goals, skills, toolcalls, wiki, wakeup):
    router.include_router(part.router)
