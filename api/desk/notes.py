"""A note's page (its text, status and validity, edges, merges and history, with edit,
archive, delete and restore) and search across layers, its results linking to note pages."""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import replace
from typing import Annotated, Any

from fastapi import APIRouter, Form, Query
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import ValidationError

from api.desk.base import CsrfField, Desk, DeskDep, DeskRoute
from api.dto.knowledge import note_patch
from api.routes.corrections import undo_mutation
from ctxnet.wire.knowledge.notes import NotePatchIn
from graph.core import journal
from graph.core.errors import Conflict, InvalidInput, NotFound
from graph.core.values import check_id
from graph.knowledge.models import KnowledgeStatus, NotePatch, Proposed
from graph.project.unified import Layer

router = APIRouter(prefix="/desk", include_in_schema=False, route_class=DeskRoute)

#: History entries, edges, merges and search results one page shows.
HISTORY = 50
EDGES = 100
MERGES = 20
RESULTS = 20
#: The fields the edit form changes.
EDITED = ("title", "content")


async def _history(desk: Desk, note_id: str) -> list[dict[str, Any]]:
    items, _ = await journal.list_mutations(
        desk.services.db, desk.principal, target_id=note_id, limit=HISTORY
    )
    return [m for m in items if desk.in_view(m.get("actor"))]


@router.get("/notes/{note_id}")
async def note_page(desk: DeskDep, note_id: str) -> HTMLResponse:
    """One note as it stands, or, deleted, its history and a way back."""
    note_id = check_id(note_id)
    knowledge = desk.services.knowledge
    try:
        note = await knowledge.notes.get(desk.principal, note_id)
    except NotFound:
        history = await _history(desk, note_id)
        deleted = next((m for m in history if m["op"] == "note.delete"), None)
        if deleted is None or desk.principal.scope is not None:
            raise
        return await desk.page("note.html", note=None, note_id=note_id, history=history, deleted=deleted)
    (edges, more_edges), merges, history = await asyncio.gather(
        knowledge.edges.connections(desk.principal, note_id, limit=EDGES),
        knowledge.merges.page(desk.principal, note_id, limit=MERGES, cursor=None),
        _history(desk, note_id),
    )
    return await desk.page(
        "note.html",
        note=note,
        was={name: digest(note.get(name), name) for name in EDITED},
        note_id=note_id,
        edges=edges,
        more_edges=more_edges is not None,
        merges=merges,
        history=history,
        deleted=None,
    )


def _back(desk: Desk, note_id: str, message: str | None = None) -> Response:
    return RedirectResponse(desk.url(f"/notes/{note_id}", done=message), status_code=303)


def digest(text: str | None, name: str = "content") -> str:
    """What the edit form keeps of a field's value as the page showed it: the sha256 of it as
    a browser sends it back (:func:`as_sent`)."""
    return hashlib.sha256(as_sent(text or "", name).encode("utf-8")).hexdigest()


def as_sent(text: str, name: str) -> str:
    """A field's text as the edit form gives it back untouched: a title's ``<input>`` drops
    every CR and LF (HTML's value sanitizing), a ``<textarea>`` turns a lone CR and CRLF into
    a line break sent as CRLF, taken here as ``\\n``. What the person sent and what is stored
    are both compared in this form, so a field the person did not touch is never "changed"."""
    if name == "title":
        return text.replace("\r", "").replace("\n", "")
    return text.replace("\r\n", "\n").replace("\r", "\n")


async def _changes(
    desk: Desk, note_id: str, given: dict[str, str], was: dict[str, str | None]
) -> dict[str, str]:
    """The fields the person changed in the form (``given`` against the digests ``was`` of what
    the page showed; without them, against what is stored). A field they changed that was
    changed under them since the page was loaded is a :class:`Conflict`: nothing is saved."""
    stored = await desk.services.knowledge.notes.get(desk.principal, note_id)
    changed: dict[str, str] = {}
    for name, value in given.items():
        shown = was.get(name) or digest(stored.get(name), name)
        if digest(value, name) == shown:
            continue
        if digest(stored.get(name), name) != shown:
            raise Conflict(
                f"the note's {name} was changed since this page was loaded; nothing was saved. "
                "Reload the page to see it, and make your change again",
                field=name,
            )
        changed[name] = as_sent(value, name)
    return changed


@router.post("/notes/{note_id}/edit")
async def edit(
    desk: DeskDep,
    note_id: str,
    title: Annotated[str, Form(max_length=300)],
    content: Annotated[str, Form(max_length=20_000)],
    title_was: Annotated[str | None, Form(pattern="^[0-9a-f]{64}$")] = None,
    content_was: Annotated[str | None, Form(pattern="^[0-9a-f]{64}$")] = None,
    reason: Annotated[str | None, Form(max_length=500)] = None,
    csrf: CsrfField = None,
) -> Response:
    """A person's edit of the fields they changed (the form carries what it showed): the
    notes service makes it a correction of what an agent wrote. A field left as it was is not
    sent, so it stays the agent's."""
    desk.check(csrf)
    note_id = check_id(note_id)
    given = {"title": title, "content": content}
    changed = await _changes(desk, note_id, given, {"title": title_was, "content": content_was})
    if not changed:
        return _back(desk, note_id, "unchanged")
    try:
        patch = note_patch(NotePatchIn.model_validate(changed))
    except ValidationError as exc:
        error = exc.errors()[0]
        raise InvalidInput(
            str(error["msg"]), field=str(error["loc"][0]) if error["loc"] else "content"
        ) from None
    person = replace(desk.principal, reason=reason.strip() or None if reason else None)
    await desk.services.knowledge.notes.update(person, note_id, patch)
    return _back(desk, note_id, "saved")


@router.post("/notes/{note_id}/status")
async def set_status(
    desk: DeskDep,
    note_id: str,
    status: Annotated[str, Form(pattern="^(active|archived)$")],
    csrf: CsrfField = None,
) -> Response:
    """Archive a note, or restore an archived one."""
    desk.check(csrf)
    patch = NotePatch(status=KnowledgeStatus(status))
    await desk.services.knowledge.notes.update(desk.principal, check_id(note_id), patch)
    return _back(desk, note_id, "archived" if status == "archived" else "restored")


@router.post("/notes/{note_id}/delete")
async def delete(desk: DeskDep, note_id: str, csrf: CsrfField = None) -> Response:
    """Delete a note with its edges (a correction, if an agent wrote it)."""
    desk.check(csrf)
    await desk.services.knowledge.notes.delete(desk.principal, check_id(note_id))
    return _back(desk, note_id, "deleted")


@router.post("/notes/{note_id}/restore")
async def restore(
    desk: DeskDep, note_id: str, mutation: Annotated[str, Form(max_length=128)], csrf: CsrfField = None
) -> Response:
    """Bring a deleted note back: the undo of its delete, through the API's undo path."""
    desk.check(csrf)
    found = await journal.find(desk.services.db, desk.principal, check_id(mutation))
    if found is None or found.get("targetId") != note_id or found.get("op") != "note.delete":
        raise NotFound(f"no delete of {note_id!r} to undo", field="mutation")
    done = await undo_mutation(desk.principal, desk.services, found["id"])
    if isinstance(done, Proposed):
        raise Conflict("restoring it waits as a proposal")
    return _back(desk, note_id, "restored")


@router.get("/search")
async def search(
    desk: DeskDep,
    q: Annotated[str | None, Query(max_length=500)] = None,
    layer: Annotated[list[Layer] | None, Query()] = None,
) -> HTMLResponse:
    """One search across knowledge, memory and docs."""
    layers = layer or list(Layer)
    found: dict[str, Any] | None = None
    if q and q.strip():
        found = await desk.services.unified.search(desk.principal, q.strip(), layers, RESULTS)
    return await desk.page(
        "search.html", q=q or "", layers=[x.value for x in layers], all_layers=list(Layer), found=found
    )
