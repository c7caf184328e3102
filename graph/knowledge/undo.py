"""Undo one mutation of the knowledge network: the journal's time machine.

An undo restores the state before the mutation and is itself journaled, as the change it
makes (``undoes`` names the mutation; undoing the undo redoes it):

==================  ==========================================================
undone              what the undo does (journaled as)
==================  ==========================================================
``note.create``     deletes the note as a delete does (``note.delete``): its merge
                    records held by the entry, each of its edges an
                    ``edge.disconnect`` of the same write
``note.delete``     brings it back: fields, creator, merge records, and edges to
                    notes that still exist (``note.create``); embedded again
``note.update``     puts the fields back (``note.update``)
``note.merge``      removes the merge record, confidence and tags as before
                    (``note.unmerge``), and the other way round
``edge.connect``    removes the edge (``edge.disconnect``), and the other way round
                    (as it was: its maker and a person's confirmation; a person's
                    undo is their word on an agent's edge); a person's confirmation
                    (a connect with a ``before``) is taken back (``edge.connect``,
                    from confirmed to as it was)
``note.status``     not alone: 409 naming the edge's write it followed
==================  ==========================================================

Statuses a removed or restored supersedes edge flips are journaled in the same write
(``note.status``). All of it happens under the write gate, in one transaction: a later
mutation of the same fields (of the same edge), or a restore that would break an
invariant (an edge to a note deleted since, an id taken since, a conflict made the other
way, a loop of supersedes edges, a status the supersedes edges forbid), is a 409 naming
the blocking mutation, and nothing is half-undone. An agent's undo that would change what
a person corrected (fields, a status, a fact they deleted) or said of an edge (it removes an
edge a person made or confirmed, or a note carrying one; it makes again an edge a person
removed) becomes a proposal; undoing a correction retires it. Those checks live in
:mod:`graph.knowledge.undo_checks`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from graph.core import journal
from graph.core.db import Database
from graph.core.embeddings import Embedder
from graph.core.errors import Conflict, NotFound
from graph.core.gate import Gated, WriteGate
from graph.core.principals import Principal, Role
from graph.core.scopes import require_unscoped
from graph.core.tenancy import tenant_key
from graph.knowledge import corrections
from graph.knowledge.corrections import Kept
from graph.knowledge.edges import (
    edge_state,
    edge_target,
    person_word,
    status_changes,
    statuses,
)
from graph.knowledge.models import (
    ALL_REL_TYPES,
    NOTE_FIELDS,
    EdgeType,
    KnowledgeType,
    Proposed,
    note_label,
    rel_type_of,
)
from graph.knowledge.note_edits import remove
from graph.knowledge.note_states import (
    TEXT_FIELDS,
    read_snapshot,
    restorable,
)
from graph.knowledge.search import TenantSizes
from graph.knowledge.undo_checks import (
    changed_since,
    check_loop,
    check_status,
    deleted_edges,
    gone,
    guard,
    status_conflict,
    watched_notes,
)

#: Operations of the knowledge network an undo reverses, and what the undo is journaled as.
INVERSE = {
    "note.create": "note.delete",
    "note.delete": "note.create",
    "note.update": "note.update",
    "note.merge": "note.unmerge",
    "note.unmerge": "note.merge",
    "edge.connect": "edge.disconnect",
    "edge.disconnect": "edge.connect",
}
#: How often an undo embeds again because the note's text changed while it was embedding.
_ATTEMPTS = 3


class UndoService:
    """Undo mutations of the caller's notes and edges."""

    def __init__(
        self,
        db: Database,
        embedder: Embedder,
        *,
        sizes: TenantSizes | None = None,
        dedupe_threshold: float = 0.95,
    ) -> None:
        self._db = db
        self._dedupe_threshold = dedupe_threshold
        self._gate = WriteGate(db)
        self._embedder = embedder
        self._sizes = sizes or TenantSizes()

    async def undo(
        self,
        principal: Principal,
        mutation: dict[str, Any],
        *,
        approving: str | None = None,
        then: Callable[[Gated, list[str]], Awaitable[None]] | None = None,
    ) -> dict[str, Any] | Proposed:
        """Undo ``mutation`` (as :func:`graph.core.journal.find` returned it); the undo's own
        journal entry, or the proposal it became."""
        require_unscoped(principal, "undo (what it restores may reach past the scope)")
        if mutation["op"] == "note.status":
            raise await status_conflict(self._db, principal, mutation)
        if mutation["op"] not in INVERSE:
            raise Conflict(f"a {mutation['op']} cannot be undone", field="id")
        for _ in range(_ATTEMPTS):
            text = await self._text(principal, mutation)
            embedding = None
            if text is not None:
                embedding = await self._kept_vector(principal, mutation)
                if embedding is None:
                    [embedding] = await self._embedder.embed([f"{text[0]}\n{text[1]}"])
            own = None  # a person's undo that takes an agent's text away keeps the service's reading
            if mutation["op"] == "note.create" or (mutation["op"] == "note.update" and text is not None):
                own = await corrections.read_stored(self._db, self._embedder, principal, mutation["targetId"])

            async def work(gated: Gated, text: Any = text, embedding: Any = embedding, own: Any = own) -> Any:
                return await self._undo_tx(
                    gated, principal, mutation["id"], text, embedding, own, approving, then
                )

            result = await self._gate.write(principal.user_id, work)
            if result is not None:
                if mutation["op"] in ("note.create", "note.delete"):
                    self._sizes.forget(principal.user_id)
                return result  # type: ignore[no-any-return]
        raise Conflict(f"note {mutation['targetId']!r} kept changing while this undo was prepared; try again")

    async def _kept_vector(self, principal: Principal, mutation: dict[str, Any]) -> list[float] | None:
        """The vector a delete's mutation kept of its note, if it was made by the embedder in
        use (an undo of the delete then needs no embedding)."""
        if mutation["op"] != "note.delete":
            return None
        kept = await journal.kept_vector(self._db, principal, mutation["id"])
        return kept[0] if kept is not None and kept[1] == self._embedder.model_id else None

    async def _text(self, principal: Principal, mutation: dict[str, Any]) -> tuple[str, str] | None:
        """The title and content the undo leaves, when it must embed them (before the gate)."""
        before = mutation.get("before") or {}
        if mutation["op"] == "note.delete":
            return before["title"], before["content"]
        if mutation["op"] == "note.update" and ("title" in before or "content" in before):
            rows = await self._db.read_listed(
                "queries/knowledge/notes_by_ids", userId=principal.user_id, ids=[mutation["targetId"]],
                withEmbedding=False,
            )  # fmt: skip
            if not rows:
                return None  # deleted since: the gate names the delete
            now = rows[0]["node"]
            return before.get("title", now["title"]), before.get("content", now["content"])
        return None

    async def _undo_tx(
        self,
        gated: Gated,
        principal: Principal,
        mutation_id: str,
        text: tuple[str, str] | None,
        embedding: list[float] | None,
        own: corrections.OwnReading | None,
        approving: str | None,
        then: Callable[[Gated, list[str]], Awaitable[None]] | None,
    ) -> dict[str, Any] | Proposed | None:
        """Under the gate; ``None`` when the text to embed changed meanwhile (embed again)."""
        m = await journal.get(gated, mutation_id)
        if m is None:
            raise NotFound(f"no mutation {mutation_id!r}", field="id")
        op, target = m["op"], m["targetId"]
        await changed_since(gated, m)
        before, after = m.get("before"), m.get("after")
        watched = await watched_notes(gated, m)
        was = await statuses(gated, watched)
        if corrections.is_agent(principal) and approving is None:
            proposal = await guard(gated, principal, m, was, embedding, self._dedupe_threshold)
            if proposal is not None:
                return proposal
        correction: _Correction | None = None
        change: tuple[dict[str, Any] | None, dict[str, Any] | None]
        extra: list[journal.Change] = []  # a note's edges, journaled on their own
        removal = None
        if op == "note.create":
            rows = await gated.run("queries/knowledge/note_snapshot", id=target, withEmbedding=True)
            snap = read_snapshot(rows[0]["note"])
            vector = corrections.kept_vector(snap, own)
            if not corrections.is_agent(principal):
                written = corrections.agent_written(snap)
                if written:
                    correction = ("delete", written, snap, None, vector)
            removal = await remove(gated, snap, approving)
            change, extra = (removal.state, None), removal.edges
        elif op == "note.delete":
            assert before is not None and embedding is not None  # noqa: S101 - by _text
            state, extra = await self._restore(gated, m, before, embedding, approving)
            change = (None, state)
        elif op == "note.update":
            updated = await self._update(gated, principal, m, text, embedding, own, was)
            if updated is None:
                return None
            change, correction = updated
        elif op in ("note.merge", "note.unmerge"):
            assert before is not None and after is not None  # noqa: S101 - a merge has both
            correction = await self._merge_correction(gated, principal, target, after, before)
            if op == "note.merge":
                await gated.run(
                    "queries/knowledge/note_unmerge", id=target, mergeId=after["merged"]["id"], **before
                )  # fmt: skip
            else:
                await gated.run(
                    "queries/knowledge/notes_merge_into", merges=[before["merged"] | {"targetId": target}],
                    role=principal.role.value, agentId=principal.agent_id,
                )  # fmt: skip
            change = (after, before)
        else:
            change = await self._edge_change(gated, principal, m)
        *_, undo_id = await journal.record_many(gated, principal, [
            *status_changes(was, await statuses(gated, watched), approving), *extra,
            journal.Change(
                op if op == "edge.connect" and before is not None else INVERSE[op], m["targetType"], target,
                change[0], change[1], undoes=mutation_id, proposal_id=approving,
            ),
        ])  # fmt: skip
        if removal is not None:
            await removal.claim(gated, undo_id)
        await _words(gated, principal, m, undo_id, change, correction)
        if then is not None:
            await then(gated, [undo_id])
        done = await journal.get(gated, undo_id)
        assert done is not None  # noqa: S101 - journaled just now
        return done

    async def _update(
        self,
        gated: Gated,
        principal: Principal,
        m: dict[str, Any],
        text: tuple[str, str] | None,
        embedding: list[float] | None,
        own: corrections.OwnReading | None,
        was: dict[str, dict[str, Any]],
    ) -> tuple[tuple[dict[str, Any], dict[str, Any]], _Correction | None] | None:
        """Put an update's fields back: the change, and a person's correction of what an agent
        wrote (``None`` when the text to embed changed meanwhile)."""
        before, after, target = m.get("before"), m.get("after"), m["targetId"]
        assert before is not None and after is not None  # noqa: S101 - an update has both
        rows = await gated.run_listed("queries/knowledge/notes_by_ids", ids=[target], withEmbedding=False)
        now = rows[0]["node"]
        if text is not None and text != (
            before.get("title", now["title"]),
            before.get("content", now["content"]),
        ):
            return None
        if "status" in before:
            await check_status(gated, m, before["status"], was)
        correction: _Correction | None = None
        if not corrections.is_agent(principal):
            # A person's undo of an agent's change is a correction like a PATCH: it keeps
            # the vector of the agent's text it takes away.
            [snap_row] = await gated.run(
                "queries/knowledge/note_snapshot", id=target, withEmbedding=text is not None
            )
            snap = dict(snap_row["note"])
            kept = corrections.kept_vector(snap, own)
            written = corrections.agent_written(snap)
            if written & set(before):
                taken = kept if written & set(before) & TEXT_FIELDS else None
                correction = ("update", written & set(before), after, before, taken)
        await gated.run(
            "queries/knowledge/note_update", id=target, props=before,
            label=note_label(KnowledgeType(before["type"])) if "type" in before else None,
            embedding=embedding, embeddingModel=self._embedder.model_id,
        )  # fmt: skip
        return ({k: now[k] for k in before}, before), correction

    async def _edge_change(
        self, gated: Gated, principal: Principal, m: dict[str, Any]
    ) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        """Undo an edge's write: a confirmation taken back, a connect's edge removed, a
        disconnect's edge made again; the edge before and after."""
        op, before, after = m["op"], m.get("before"), m.get("after")
        if op == "edge.connect" and before is not None:  # a person's word on an agent's edge
            assert after is not None  # noqa: S101 - a confirmation has both
            rows = await gated.run(
                "queries/knowledge/edge_confirm", sourceId=after["sourceId"], targetId=after["targetId"],
                relType=rel_type_of(EdgeType(after["type"])), confirmed=before.get("confirmedByPerson"),
            )  # fmt: skip
            if not rows:
                raise await gone(gated, m, [after["sourceId"], after["targetId"]])
            return after, edge_state(rows[0]["edge"])
        if op == "edge.connect":
            assert after is not None  # noqa: S101 - a connect has its edge
            rows = await gated.run(
                "queries/knowledge/edge_delete", sourceId=after["sourceId"], targetId=after["targetId"],
                relType=rel_type_of(EdgeType(after["type"])),
            )  # fmt: skip
            if not rows or not rows[0]["edges"]:
                raise await gone(gated, m, [after["sourceId"], after["targetId"]])
            return edge_state(rows[0]["edges"][0]), None
        assert before is not None  # noqa: S101 - a disconnect has its edge
        return None, await self._reconnect(gated, principal, m, before)

    async def _restore(
        self,
        gated: Gated,
        m: dict[str, Any],
        snapshot: dict[str, Any],
        embedding: list[float],
        approving: str | None,
    ) -> tuple[dict[str, Any], list[journal.Change]]:
        """Bring a deleted note back with the merge records its delete held and its edges to
        notes that exist (409 when its supersedes edges would close a loop with edges made
        since): the state it is back in, and an ``edge.connect`` for each edge brought back
        (a delete from before edges were journaled on their own: inside the state)."""
        removed = await deleted_edges(gated, m)
        edges = []
        for i, e in enumerate(removed):
            if e["relType"] not in ALL_REL_TYPES:
                continue  # only the four types are ever written back
            outgoing = e["sourceId"] == snapshot["id"]
            edges.append({
                "index": i, "otherId": e["targetId"] if outgoing else e["sourceId"], "outgoing": outgoing,
                "relType": e["relType"], "createdAt": e.get("createdAt"), "source": e.get("source"),
                "confidence": e.get("confidence"), "note": e.get("note"),
                "createdByRole": e.get("createdByRole"), "createdByAgent": e.get("createdByAgent"),
                "confirmedByPerson": e.get("confirmedByPerson"),
                "validFrom": e.get("validFrom"), "validUntil": e.get("validUntil"),
            })  # fmt: skip
        note = restorable(snapshot)
        [row] = await gated.run(
            "queries/knowledge/note_restore", note=note, edges=edges, embedding=embedding,
            tenantKey=tenant_key(gated.user_id), embeddingModel=self._embedder.model_id, heldBy=m["id"],
        )  # fmt: skip
        kept = set(row["restored"])
        if any(e["relType"] == "SUPERSEDES" for e in edges):
            await check_loop(gated, m, snapshot["id"], f"bringing back {snapshot['id']!r}")
        back = [e for i, e in enumerate(removed) if i in kept]
        if "edges" in snapshot:
            return snapshot | {"edges": back}, []
        changes = [
            journal.Change("edge.connect", "Edge", edge_target(e), None, edge_state(e), proposal_id=approving)
            for e in back
        ]
        return snapshot, changes

    async def _reconnect(
        self, gated: Gated, principal: Principal, m: dict[str, Any], edge: dict[str, Any]
    ) -> dict[str, Any]:
        """Create a removed edge again, as it was: its maker and a person's word on it as the
        removal journaled them (an entry from before they were journaled: the undoer's), and
        a person's undo is their word on an agent's edge (409 when one of its notes is gone, or
        for a loop of supersedes edges)."""
        ends = [edge["sourceId"], edge["targetId"]]
        [found] = await gated.run("queries/knowledge/notes_existing_ids", ids=ends, scope=None)
        if set(found["ids"]) != set(ends):
            raise await gone(gated, m, [e for e in ends if e not in found["ids"]])
        kind = EdgeType(edge["type"])
        row = {
            "index": 0, "sourceId": edge["sourceId"], "targetId": edge["targetId"],
            "relType": rel_type_of(kind),
            "source": edge.get("source"), "confidence": edge.get("confidence"), "note": edge.get("note"),
            "validFrom": edge.get("validFrom"), "validUntil": edge.get("validUntil"),
            "createdByRole": edge.get("createdByRole"), "createdByAgent": edge.get("createdByAgent"),
        }  # fmt: skip
        by_agent = (edge.get("createdByRole") or principal.role.value) != Role.HUMAN.value
        if edge.get("confirmedByPerson") or (by_agent and not corrections.is_agent(principal)):
            row["confirmedByPerson"] = True
        [created] = await gated.run(
            "queries/knowledge/edges_create",
            rows=[row],
            role=principal.role.value,
            agentId=principal.agent_id,
        )
        if not created["created"]:  # the conflictsWith edge the other way, made since
            reverse = f"{edge['targetId']} {kind.value} {edge['sourceId']}"
            made = [
                x
                for x in await journal.history(gated, reverse, after_seq=m["seq"])
                if x["op"] == "edge.connect"
            ]
            raise Conflict(
                f"{reverse!r} exists now (one conflictsWith edge either way); undo its connect first",
                field="id",
                blocking_mutation=made[0]["id"] if made else None,
            )
        if kind == EdgeType.SUPERSEDES:
            # ``edge`` is as the journal keeps it (the API's type name), the row the stored one
            back = edge_target(row)
            await check_loop(gated, m, edge["sourceId"], f"bringing back {back!r}")
        return edge_state(created["edge"])

    @staticmethod
    async def _merge_correction(
        gated: Gated, principal: Principal, target: str, after: dict[str, Any], before: dict[str, Any]
    ) -> tuple[str, set[str], dict[str, Any], dict[str, Any] | None, Kept | None] | None:
        """A person's undo of a merge (or unmerge) that puts back fields an agent wrote is a
        correction of those fields."""
        if corrections.is_agent(principal):
            return None
        [snap] = await gated.run("queries/knowledge/note_snapshot", id=target, withEmbedding=False)
        written = corrections.agent_written(snap["note"])
        names = written & set(before) & set(NOTE_FIELDS)
        if not names:
            return None
        return ("update", names, {k: after[k] for k in names}, {k: before[k] for k in names}, None)


#: A person's correction an undo records: its kind, the fields, the state they were in and
#: are in now, and the vector of the text it took away.
_Correction = tuple[str, set[str], dict[str, Any], dict[str, Any] | None, Kept | None]


async def _words(
    gated: Gated,
    principal: Principal,
    m: dict[str, Any],
    undo_id: str,
    change: tuple[dict[str, Any] | None, dict[str, Any] | None],
    correction: _Correction | None,
) -> None:
    """What an undo says of a person's word: corrections it undoes retire (or come back), a
    person's removal or making of an edge is their word on it, and a person's undo of what
    an agent wrote is a correction."""
    await gated.run("queries/knowledge/corrections_on_undo", undoneId=m["id"], undoId=undo_id)
    if m["op"] == "edge.disconnect" or (m["op"] == "edge.connect" and m.get("before") is None):
        await person_word(gated, principal, undo_id, removed=change[0], made=change[1])
    if correction is not None:
        kind, names, was, now_state, kept = correction
        await corrections.record(
            gated, principal, mutation_id=undo_id, kind=kind, node_id=m["targetId"], fields=names,
            before=was, after=now_state, embedding=kept,
        )  # fmt: skip
