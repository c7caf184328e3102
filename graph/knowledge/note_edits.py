"""Changing and deleting a note: the update and delete paths of
:class:`~graph.knowledge.notes.NoteService`.

An update re-embeds only when title or content changed, and is checked again under the
user's lock against the text it embedded; a delete is journaled with everything an undo
needs. An agent's change of what a person wrote or corrected is proposed instead; a
person's change of an agent's note is a correction (:mod:`graph.knowledge.corrections`).
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from graph.core import journal
from graph.core.db import Database
from graph.core.embeddings import Embedder
from graph.core.errors import Conflict, Forbidden, InvalidInput, NotFound
from graph.core.gate import Gated, WriteGate
from graph.core.principals import Principal, Role
from graph.core.values import iso_millis
from graph.knowledge import corrections
from graph.knowledge.edges import edge_state, edge_target, held_statuses, status_changes, statuses, would_flip
from graph.knowledge.models import (
    NOTE_FIELDS,
    KnowledgeStatus,
    KnowledgeType,
    NotePatch,
    Proposed,
    note_label,
)
from graph.knowledge.note_states import (
    TEXT_FIELDS,
    patch_props,
    read_snapshot,
    snapshot_state,
    superseded_by_snapshot,
)
from graph.knowledge.search import TenantSizes
from graph.knowledge.valid_time import millis_now
from graph.knowledge.views import note_view

#: How a change reads a note first (the note service's ``get``: scoped, not found otherwise).
ReadNote = Callable[[Principal, str], Awaitable[dict[str, Any]]]


class NoteEdits:
    """Update and delete a user's notes (the change paths of the note service)."""

    def __init__(
        self,
        db: Database,
        gate: WriteGate,
        embedder: Embedder,
        *,
        dedupe_threshold: float,
        sizes: TenantSizes,
        read: ReadNote,
    ) -> None:
        self._db = db
        self._gate = gate
        self._embedder = embedder
        self._dedupe_threshold = dedupe_threshold
        self._sizes = sizes
        self._read = read

    async def update(
        self,
        principal: Principal,
        node_id: str,
        patch: NotePatch,
        *,
        approving: str | None = None,
        then: Callable[[Gated, list[str]], Awaitable[None]] | None = None,
        ending: bool = False,
    ) -> dict[str, Any] | Proposed:
        """Change some fields; re-embeds only when title or content changed.

        The vector is computed before the gate (it is slow) from the text as read then; under
        the gate the note is read again, and if its text changed meanwhile the vector is
        computed anew, so a stored vector is always its own text's. A patch that changes
        nothing writes nothing, but a person's patch that restates a field an agent wrote
        confirms it: journaled, the field is the person's from then on (an agent's later
        change of it is proposed). A non-human patch of a field a person corrected is not
        applied but proposed; a person's patch of agent-written fields is a correction.
        ``then`` runs in the same transaction with the ids of the mutations it journaled.
        ``ending``: the patch ends the note's validity, refused if it had ended by then.
        """
        if patch.status == KnowledgeStatus.SUPERSEDED:
            raise InvalidInput(
                "a note becomes superseded through a supersedes edge: "
                "POST /v1/knowledge/{id}/connections from the note that replaces it",
                field="status",
            )
        props = patch_props(patch)
        read = await self._read(principal, node_id)
        for _ in range(_PATCH_ATTEMPTS):
            text = _patched_text(read, patch)
            embedding, own = None, None
            if text != (read["title"], read["content"]):
                [embedding] = await self._embedder.embed([f"{text[0]}\n{text[1]}"])
                own = await corrections.read_stored(self._db, self._embedder, principal, node_id)
            work = functools.partial(
                self._update_tx,
                principal,
                node_id,
                patch,
                props,
                text,
                embedding,
                own,
                approving,
                then,
                ending,
            )
            result = await self._gate.write(principal.user_id, work)
            if isinstance(result, Proposed):
                return result
            if "node" in result:
                node: dict[str, Any] = result["node"]
                return node
            read = note_view(result["stale"])
        raise Conflict(
            f"note {node_id!r} kept changing while this update was prepared; try again", field="id"
        )

    async def _update_tx(
        self,
        principal: Principal,
        node_id: str,
        patch: NotePatch,
        props: dict[str, Any],
        text: tuple[str, str],
        embedding: list[float] | None,
        own: corrections.OwnReading | None,
        approving: str | None,
        then: Callable[[Gated, list[str]], Awaitable[None]] | None,
        ending: bool,
        gated: Gated,
    ) -> dict[str, Any] | Proposed:
        """Under the gate: ``{"node": ...}`` once written, a proposal, or ``{"stale": ...}``
        when the note's text changed since it was read so that ``embedding`` (of ``text``,
        or ``None`` for an unchanged text) is no longer the vector of the text this update
        leaves (the caller embeds again). An update of both title and content is never stale."""
        rows = await gated.run_listed("queries/knowledge/notes_by_ids", ids=[node_id], withEmbedding=False)
        if not rows or not principal.sees(node_id, rows[0]["node"]["tags"]):
            raise NotFound(f"no note {node_id!r}", field="id")
        now = rows[0]["node"]
        leaves = _patched_text(now, patch)
        unchanged = leaves == (now["title"], now["content"])
        if leaves != text or (embedding is None and not unchanged):
            return {"stale": now}
        if ending and "validUntil" not in props:  # now, read under the gate: the first of two stands
            props = props | {"validUntil": millis_now()}
        if ending and now.get("validUntil") is not None and now["validUntil"] <= props["validUntil"]:
            raise Conflict(
                f"note {node_id!r} stopped being valid at {iso_millis(now['validUntil'])} already "
                f"({now.get('invalidReason') or 'its stated end'})",
                field="at",
            )
        changed = {k: v for k, v in props.items() if now.get(k) != v}
        valid = {**now, **changed}
        if (
            None not in (valid.get("validFrom"), valid.get("validUntil"))
            and valid["validUntil"] <= valid["validFrom"]
        ):
            raise InvalidInput(
                f"note {node_id!r} would stop being valid before it began: validUntil must come after "
                "validFrom",
                field="validUntil",
            )
        confirmed: set[str] = set()
        if not corrections.is_agent(principal):  # a person's word on an agent's value
            confirmed = (set(props) - set(changed)) & set(NOTE_FIELDS) & corrections.agent_written(now)
        if not changed and not confirmed:  # nothing to write, nothing to journal
            if then is not None:
                await then(gated, [])
            return {"node": note_view(now)}
        if changed.get("status") == KnowledgeStatus.ACTIVE.value:
            # Whatever the status it comes from (superseded, or archived after it): a note
            # a supersedes edge points at is not active while the edge stands.
            [by] = await gated.run("queries/knowledge/superseded_by", id=node_id)
            if by["ids"]:
                raise Conflict(
                    f"note {node_id!r} is superseded by {', '.join(map(repr, by['ids']))}; "
                    "delete that supersedes edge to make it active again",
                    field="status",
                )
        if corrections.is_agent(principal) and approving is None:
            held = (await corrections.held(gated, [node_id])).get(node_id, {})
            # Ending (or moving) a fact's valid time changes whether what it says is true: an
            # agent may not do it to a text a person wrote or corrected.
            hits = (set(changed) | (TEXT_FIELDS if _VALID_TIME & set(changed) else set())) & set(held)
            revived = {}
            if embedding is not None and not unchanged:  # text a person took away, PATCHed in
                reading = corrections.Reading(embedding, corrections.fingerprint(*leaves))
                revived = await corrections.deleted_twins(gated, [(0, reading)], self._dedupe_threshold)
            if hits or revived:
                twin = revived.get(0)
                return Proposed(await corrections.propose(
                    gated, principal, op="note.update", target_id=node_id, payload={"patch": changed},
                    fields=hits | (TEXT_FIELDS & set(changed) if twin else set()),
                    corrections=[held[k] for k in hits] + ([twin["correctionId"]] if twin else []),
                ))  # fmt: skip
        written: set[str] = set()
        replaced: corrections.Kept | None = None
        if not corrections.is_agent(principal):
            [snap] = await gated.run(
                "queries/knowledge/note_snapshot", id=node_id, withEmbedding=not unchanged
            )
            written = corrections.agent_written(snap["note"])
            if written & set(changed) & TEXT_FIELDS:
                # The agent's text a person corrects away keeps its vector with the correction:
                # an agent's later create of a twin of it becomes a proposal, as for a delete.
                replaced = corrections.kept_vector(dict(snap["note"]), own)
        if changed:
            await gated.run(
                "queries/knowledge/note_update",
                id=node_id,
                props=changed,
                label=note_label(KnowledgeType(changed["type"])) if "type" in changed else None,
                embedding=embedding if not unchanged else None,
                embeddingModel=self._embedder.model_id,
            )
        before = {k: now.get(k) for k in (*changed, *confirmed)}
        after = {**changed, **{k: now.get(k) for k in confirmed}}
        [mutation_id] = await journal.record_many(gated, principal, [journal.Change(
            "note.update", "Knowledge", node_id, before, after, proposal_id=approving,
            confirms=frozenset(confirmed),
        )])  # fmt: skip
        if written & set(changed):
            await corrections.record(
                gated, principal, mutation_id=mutation_id, kind="update", node_id=node_id,
                fields=written & set(changed), before=before, after=changed, embedding=replaced,
            )  # fmt: skip
        if then is not None:
            await then(gated, [mutation_id])
        [row] = await gated.run_listed("queries/knowledge/notes_by_ids", ids=[node_id], withEmbedding=False)
        return {"node": note_view(row["node"])}

    async def delete(
        self,
        principal: Principal,
        node_id: str,
        *,
        approving: str | None = None,
        then: Callable[[Gated, list[str]], Awaitable[None]] | None = None,
    ) -> list[str] | Proposed:
        """Delete a note, its edges and merge records; returns notes restored from superseded.

        Journaled with everything an undo needs to bring it back (its vector beside the
        JSON). A non-human delete of a note a person wrote or corrected is proposed instead;
        a person's delete of an agent's note is a correction, which keeps the service's own
        vector of its text so an agent cannot write a twin of it back.
        """
        own = await corrections.read_stored(self._db, self._embedder, principal, node_id)

        async def work(gated: Gated) -> list[str] | Proposed:
            rows = await gated.run("queries/knowledge/note_snapshot", id=node_id, withEmbedding=True)
            if not rows or not principal.sees(node_id, rows[0]["note"]["tags"]):
                raise NotFound(f"no note {node_id!r}", field="id")
            snap = read_snapshot(rows[0]["note"])
            await require_ends_in_scope(gated, principal, snap)
            stored = (snap["embedding"], snap.get("embeddingModel")) if snap.get("embedding") else None
            vector = corrections.kept_vector(snap, own)
            superseded = superseded_by_snapshot(snap)
            was = await statuses(gated, superseded)
            if corrections.is_agent(principal) and approving is None:
                held = (await corrections.held(gated, [node_id])).get(node_id, {})
                freed_held = await held_statuses(gated, principal, would_flip(was, removing=True))
                edges_held = any(
                    e.get("createdByRole") == Role.HUMAN.value or e.get("confirmedByPerson")
                    for e in snap.get("edges") or []
                )  # a person's edge goes with the note
                if held or freed_held or edges_held:
                    fields = set(held) or ({"status"} if freed_held else set())
                    return Proposed(await corrections.propose(
                        gated, principal, op="note.delete", target_id=node_id, payload={},
                        fields=fields | ({"edge"} if edges_held else set()),
                        corrections=[*held.values(), *freed_held.values()],
                    ))  # fmt: skip
            written = set() if corrections.is_agent(principal) else corrections.agent_written(snap)
            removal = await remove(gated, snap, approving)
            *_, mutation_id = await journal.record_many(gated, principal, [
                *status_changes(was, await statuses(gated, superseded), approving), *removal.edges,
                journal.Change(
                    "note.delete", "Knowledge", node_id, removal.state, None, proposal_id=approving,
                    vector=stored,
                ),
            ])  # fmt: skip
            await removal.claim(gated, mutation_id)
            if written:
                await corrections.record(
                    gated, principal, mutation_id=mutation_id, kind="delete", node_id=node_id,
                    fields=written, before=snap, after=None, embedding=vector,
                )  # fmt: skip
            if then is not None:
                await then(gated, [mutation_id])
            return list(removal.restored)

        result = await self._gate.write(principal.user_id, work)
        self._sizes.forget(principal.user_id)
        return result


@dataclass(frozen=True)
class Removal:
    """A note deleted under the gate, to journal: its state (bounded: counts of what it
    gathered), an ``edge.disconnect`` for each of its edges, the notes restored from
    superseded, and the key of the merge records it held until its mutation claims them."""

    state: dict[str, Any]
    edges: list[journal.Change]
    restored: list[str]
    hold: str

    async def claim(self, gated: Gated, mutation_id: str) -> None:
        """The merge records are held by the delete's mutation from now on."""
        await gated.run("queries/knowledge/note_held_claim", hold=self.hold, mutationId=mutation_id)


async def remove(gated: Gated, snap: dict[str, Any], approving: str | None) -> Removal:
    """Delete a note read as ``note_snapshot`` (with its edges) read it: its merge records
    stay, detached and held for an undo; its edges are journaled one by one, so the delete's
    own entry holds only the note's fields (a note that gathered 1,000 merges of 20,000
    characters and 10,000 edges is as big in the journal as one that gathered none)."""
    hold = uuid.uuid4().hex
    [deleted] = await gated.run("queries/knowledge/note_delete", id=snap["id"], heldBy=hold)
    edges = [
        journal.Change("edge.disconnect", "Edge", edge_target(e), edge_state(e), None, proposal_id=approving)
        for e in snap.get("edges") or []
    ]
    state = snapshot_state(snap, merges=int(deleted["held"]))
    return Removal(state, edges, list(deleted["restored"]), hold)


async def require_ends_in_scope(gated: Gated, principal: Principal, snap: dict[str, Any]) -> None:
    """A scoped key may not delete a note connected to notes outside its scope: the delete
    would remove those edges (and might restore a note it superseded)."""
    if principal.scope is None:
        return
    ends = sorted({e[k] for e in snap.get("edges") or [] for k in ("sourceId", "targetId")} - {snap["id"]})
    if not ends:
        return
    rows = await gated.run_listed("queries/knowledge/notes_by_ids", ids=ends, withEmbedding=False)
    if any(not principal.sees(r["node"]["id"], r["node"]["tags"]) for r in rows):
        raise Forbidden(
            f"note {snap['id']!r} is connected to notes outside this key's scope; only an unscoped key may "
            "delete it",
            field="id",
        )


#: A note's valid time (stored as its text's fields are, held as they are).
_VALID_TIME = frozenset({"validFrom", "validUntil"})

#: How often an update re-embeds because its note's text changed while it was embedding.
_PATCH_ATTEMPTS = 5


def _patched_text(note: dict[str, Any], patch: NotePatch) -> tuple[str, str]:
    """Title and content of ``note`` once ``patch`` is applied."""
    return (
        patch.title if patch.title is not None else note["title"],
        patch.content if patch.content is not None else note["content"],
    )
