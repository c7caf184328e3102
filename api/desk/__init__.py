"""The desk: web pages where a person reviews, corrects and undoes what agents remember.

Served by the API under ``/desk`` (left out of the OpenAPI contract: pages for people, not
operations for agents). Every action calls the same services as the API's routes; the desk
has no Cypher of its own. docs/desk.md says what a person does there and how it is built.
"""

from __future__ import annotations

from fastapi import APIRouter

from api.desk import auth, context, inbox, notes, timeline

router = APIRouter()
for part in (auth, inbox, timeline, notes, context):
    router.include_router(part.router)
