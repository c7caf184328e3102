"""Creating notes: ids checked, vectors computed, dedupe into twins, and an agent's create that
a person's word holds back turned into a proposal.

:class:`NoteCreation` is the create path of :class:`~graph.knowledge.notes.NoteService`: one
gated transaction per request (a batch of 1,000 notes commits whole or not at all), each new
note and each merge journaled in it. What is already there is decided under the user's lock,
by what is committed.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from graph.core import journal
from graph.core.db import Database, Row
from graph.core.embeddings import Embedder
from graph.core.errors import Conflict, Forbidden, InvalidInput
from graph.core.gate import Gated, WriteGate
from graph.core.principals import Principal
from graph.core.tenancy import tenant_key
from graph.core.values import check_id, iso_millis
from graph.core.vectors import VectorPlanConfig, check_vectors
from graph.knowledge import corrections
from graph.knowledge.dedupe import Thresholds, decide, stored_candidates
from graph.knowledge.edges import link
from graph.knowledge.models import MAX_BATCH, NOTE_FIELDS, CreateResult, EdgeType, NewEdge, NewNote
from graph.knowledge.note_states import create_payload, create_row, created_state
from graph.knowledge.search import TenantSizes
from graph.knowledge.subjects import Relation
from graph.knowledge.update_links import linked, removed_links, update_kind, update_rows
from graph.knowledge.views import created_note_view, note_view


@dataclass
class PendingNote:
    """A note of a create request, with its final id and vector."""

    index: int
    note: NewNote
    node_id: str
    embedding: list[float]
    #: The service's own reading of the text (its vector is ``None`` when the note came with
    #: a vector of its own and nothing a person took away needs comparing).
    reading: corrections.Reading | None = None

    @property
    def text(self) -> tuple[str, str]:
        """Its title and content, as dedupe compares them."""
        return self.note.title, self.note.content


class _ReadAgain(Exception):  # noqa: N818 - a signal, not an error
    """A person took agent text away while an agent's notes with vectors of their own were
    prepared without the service's own reading of them: read them and write again."""


class NoteCreation:
    """Create a user's notes (the create path of the note service)."""

    def __init__(
        self,
        db: Database,
        gate: WriteGate,
        embedder: Embedder,
        *,
        limits: Thresholds,
        plan: VectorPlanConfig,
        sizes: TenantSizes,
    ) -> None:
        self._db = db
        self._gate = gate
        self._embedder = embedder
        self._limits = limits
        self._plan = plan
        self._sizes = sizes

    async def _embeddings(
        self, notes: Sequence[NewNote], field_prefix: Callable[[int], str]
    ) -> list[list[float]]:
        """Supplied vectors are checked; the rest are computed in one embedder call."""
        check_vectors(
            [n.embedding for n in notes], self._embedder.dimension, lambda i: f"{field_prefix(i)}embedding"
        )
        missing = [i for i, n in enumerate(notes) if n.embedding is None]
        computed = await self._embedder.embed([f"{notes[i].title}\n{notes[i].content}" for i in missing])
        vectors: list[list[float] | None] = [n.embedding for n in notes]
        for i, vector in zip(missing, computed, strict=True):
            vectors[i] = vector
        return [v for v in vectors if v is not None]

    async def create(
        self,
        principal: Principal,
        notes: Sequence[NewNote],
        *,
        batch: bool,
        then: Callable[[Gated, list[CreateResult]], Awaitable[None]] | None = None,
        keep_existing: bool = False,
        approving: str | None = None,
    ) -> list[CreateResult]:
        """Create notes in one gated transaction; ids already present are returned unchanged.

        An id already present with other title, content or type is a :class:`Conflict`, unless
        ``keep_existing`` (pipelines that derive notes: what is stored, perhaps a person's
        edit, wins). ``then`` runs inside the same transaction with the results (e.g. to
        record provenance), so the notes and whatever it writes commit together. Each new
        note and each merge is journaled; a non-human create that a person's correction
        holds back becomes a proposal (:mod:`graph.knowledge.corrections`). ``approving``
        names the proposal a person approved, when this create is one.
        """
        if len(notes) > MAX_BATCH:
            raise InvalidInput(f"at most {MAX_BATCH} notes per batch, got {len(notes)}", field="items")

        def field_prefix(i: int) -> str:
            return f"items.{i}." if batch else ""

        ids: list[str] = []
        for i, note in enumerate(notes):
            node_id = check_id(note.id, f"{field_prefix(i)}id") if note.id else uuid.uuid4().hex
            ids.append(node_id)
        seen: dict[str, int] = {}
        for i, node_id in enumerate(ids):
            if node_id in seen:
                raise InvalidInput(f"id {node_id!r} appears twice in the batch", field=f"{field_prefix(i)}id")
            seen[node_id] = i
        if principal.scope is not None:
            for i, (node_id, note) in enumerate(zip(ids, notes, strict=True)):
                if not principal.sees(node_id, note.tags):
                    raise Forbidden(
                        "this key is scoped: a note it creates must carry one of its tags "
                        f"({', '.join(principal.scope.tags) or 'none'}) or one of its note ids",
                        field=f"{field_prefix(i)}tags",
                    )
        vectors = await self._embeddings(notes, field_prefix)  # slow: before the gate, not under it
        guarded = corrections.is_agent(principal) and approving is None
        own = (
            guarded and any(n.embedding is not None for n in notes) and await self._has_taken_text(principal)
        )
        for _ in range(2):
            pending = [PendingNote(i, n, ids[i], vectors[i]) for i, n in enumerate(notes)]
            if guarded:
                await self._read(pending, own)

            async def work(gated: Gated, pending: list[PendingNote] = pending) -> list[CreateResult]:
                results = await self._create_tx(
                    gated, principal, pending, field_prefix, keep_existing, approving, batch
                )
                if then is not None:
                    await then(gated, results)
                return results

            try:
                results = await self._gate.write(principal.user_id, work)
            except _ReadAgain:
                own = True
                continue
            self._sizes.forget(principal.user_id)
            return results
        raise AssertionError("unreachable: a second attempt reads every text")  # pragma: no cover

    async def _has_taken_text(self, principal: Principal) -> bool:
        rows = await self._db.read("queries/knowledge/corrections_text_any", userId=principal.user_id)
        return bool(rows[0]["any"])

    async def _read(self, pending: list[PendingNote], own: bool) -> None:
        """The service's own reading of each agent note: its fingerprint, and its vector (the
        one computed here, or for a note that came with a vector, computed now when ``own``)."""
        supplied = [p for p in pending if p.note.embedding is not None] if own else []
        mine = await self._embedder.embed([f"{p.note.title}\n{p.note.content}" for p in supplied])
        computed = {p.index: v for p, v in zip(supplied, mine, strict=True)}
        for p in pending:
            vector = p.embedding if p.note.embedding is None else computed.get(p.index)
            p.reading = corrections.Reading(vector, corrections.fingerprint(p.note.title, p.note.content))

    async def _create_tx(
        self,
        gated: Gated,
        principal: Principal,
        pending: list[PendingNote],
        field_prefix: Callable[[int], str],
        keep_existing: bool,
        approving: str | None,
        batch: bool,
    ) -> list[CreateResult]:
        """Under the user's lock: what is already there is decided here, by what is committed."""
        supplied = [p.node_id for p in pending if p.note.id]
        existing: dict[str, dict[str, Any]] = {}
        merged_before: dict[str, Row] = {}
        if supplied:  # generated ids are new by construction: two statements saved
            for row in await gated.run_listed(
                "queries/knowledge/notes_by_ids", ids=supplied, withEmbedding=False
            ):
                existing[row["node"]["id"]] = row["node"]
            for row in await gated.run("queries/knowledge/merged_lookup", ids=supplied):
                merged_before[row["requestedId"]] = row
        outcome: dict[int, tuple[str, bool, str | None]] = {}  # index -> (node id, created, merged into)
        merged_earlier: set[int] = set()  # folded into its twin by an earlier create, not this one
        proposals: dict[int, dict[str, Any]] = {}
        fresh: list[PendingNote] = []
        for p in pending:
            known = existing.get(p.node_id) or merged_before.get(p.node_id)
            if known is None:
                fresh.append(p)
                continue
            if not principal.sees(known.get("targetId") or p.node_id, known["tags"]):
                # Whatever the text: a scoped key learns nothing of a note outside its scope.
                raise Conflict(
                    f"note id {p.node_id!r} is taken outside this key's scope; use another id",
                    field=f"{field_prefix(p.index)}id",
                )
            if not keep_existing and (known["title"], known["content"], known["type"], known.get("data")) != (
                p.note.title,
                p.note.content,
                p.note.type.value,
                p.note.data,
            ):
                merged = p.node_id not in existing
                raise Conflict(
                    f"note {p.node_id!r} already exists with other title, content, type or data"
                    + (f" (it was folded into its twin {known['targetId']!r})" if merged else "")
                    + "; PATCH it to change it, or create the new note under another id",
                    field=f"{field_prefix(p.index)}id",
                )
            if p.node_id in existing:
                outcome[p.index] = (p.node_id, False, None)
            else:
                outcome[p.index] = (known["targetId"], False, known["targetId"])
                merged_earlier.add(p.index)

        guarded = corrections.is_agent(principal) and approving is None
        if guarded and fresh:  # a fact a person took away is not written back by an agent
            revived: dict[int, dict[str, Any]] = {}
            if await corrections.has_taken_text(gated):  # else nothing to compare with
                if any(p.reading is None or p.reading.vector is None for p in fresh):
                    raise _ReadAgain
                readings = [(p.index, p.reading) for p in fresh if p.reading is not None]
                revived = await corrections.deleted_twins(gated, readings, self._limits.dedupe)
            for p in fresh:
                if p.index in revived:
                    proposals[p.index] = await self._propose_create(
                        gated, principal, p, {"revives": _revives(principal, revived[p.index])},
                        NOTE_FIELDS, [revived[p.index]["correctionId"]], batch,
                    )  # fmt: skip
            fresh = [p for p in fresh if p.index not in proposals]

        deduped = [p for p in fresh if p.note.dedupe]
        near = await stored_candidates(
            gated, deduped, floor=self._limits.floor, plan=self._plan, scope=principal.scope
        )
        # What each stored candidate says (to tell an update from a restatement or a sibling),
        # and what a merge changes on it (confidence, tags), as the merge query does it.
        stored_near = sorted({t.node_id for twins in near.values() for t in twins})
        twin_state: dict[str, dict[str, Any]] = {}
        stored_texts: dict[str, tuple[str, str]] = {}
        if stored_near:
            for node in await gated.run_listed("queries/knowledge/notes_compared", ids=stored_near):
                twin_state[node["id"]] = {k: node[k] for k in ("confidence", "tags", "mergeCount")}
                stored_texts[node["id"]] = (node["title"], node["content"])
        decisions = await decide(gated, deduped, stored_texts, near, self._limits)
        merges = {i: d.twin for i, d in decisions.items() if d.twin is not None}
        changed = {i: d for i, d in decisions.items() if d.changes is not None}
        updates: dict[int, tuple[str, EdgeType, str]] = {}  # index -> (note it changes, edge type, why)
        targets = {t.node_id for t in merges.values()} | {
            d.changes.node_id for d in changed.values() if d.changes
        }
        held = await corrections.held(gated, sorted(targets - {p.node_id for p in fresh})) if guarded else {}
        for p in fresh:
            if p.index not in merges:
                twin_state[p.node_id] = {
                    "confidence": p.note.confidence,
                    "tags": list(p.note.tags),
                    "mergeCount": 0,
                }
        rows, merge_rows = [], []
        changes: list[journal.Change] = []
        kinds = {i: update_kind(d.relation is Relation.UPDATE) for i, d in changed.items()}
        wanted = {
            i: NewEdge(pending[i].node_id, kind, d.changes.node_id)
            for i, kind in kinds.items()
            if (d := changed[i]).changes is not None
        }
        removed = await removed_links(gated, wanted) if guarded else {}
        for p in fresh:
            twin = merges.get(p.index)
            if (decision := changed.get(p.index)) is not None and decision.changes is not None:
                # An update of a note it resembles is a new fact beside the old, never folded in.
                target, kind = decision.changes.node_id, kinds[p.index]
                holders = held.get(target, {})
                # What a person wrote or corrected is not superseded by an agent, nor is an
                # update's edge a person removed made again.
                by = {k: holders[k] for k in sorted(set(holders) & {"title", "content", "status"})}
                if by := by | removed.get(p.index, {}):
                    proposals[p.index] = await self._propose_create(
                        gated, principal, p, {kind.value: target}, by, by.values(), batch
                    )
                    continue
                why = ", ".join(sorted(decision.change.kinds)) if decision.change else "value"
                updates[p.index] = (target, kind, why)
            if twin is None:
                row = create_row(p.note, p.node_id, p.embedding)
                rows.append(row)
                outcome[p.index] = (p.node_id, True, None)
                continue
            before = twin_state[twin.node_id]
            after = {
                "confidence": max(before["confidence"], p.note.confidence),
                "tags": before["tags"] + [t for t in p.note.tags if t not in before["tags"]],
                "mergeCount": before["mergeCount"] + 1,
            }
            moved = {k for k in corrections.MERGE_FIELDS if after[k] != before[k]}
            holders = held.get(twin.node_id, {})
            contested = {k for k in moved & set(holders) if holders[k] is not corrections.PERSON_WRITTEN}
            if contested:  # the merge would move a field a person corrected
                proposals[p.index] = await self._propose_create(
                    gated, principal, p, {"mergeInto": twin.node_id}, contested,
                    [holders[k] for k in contested], batch,
                )  # fmt: skip
                continue
            # A restatement of what a person wrote is folded in as a record of agreement, the
            # person's confidence and tags left as they are.
            keep = sorted(moved & set(holders))
            after |= {k: before[k] for k in keep}
            merge_id = uuid.uuid4().hex
            merge_rows.append(
                {
                    "id": merge_id,
                    "targetId": twin.node_id,
                    "requestedId": p.node_id if p.note.id else None,
                    "title": p.note.title,
                    "content": p.note.content,
                    "type": p.note.type.value,
                    "source": p.note.source.value,
                    "confidence": p.note.confidence,
                    "tags": list(p.note.tags),
                    "sourceRef": p.note.source_ref,
                    "data": p.note.data,
                    "similarity": twin.similarity,
                    "keep": keep,
                }
            )
            twin_state[twin.node_id] = after
            record = {k: v for k, v in merge_rows[-1].items() if k != "targetId"}  # keep: for a redo
            changes.append(journal.Change(
                "note.merge", "Knowledge", twin.node_id, before, after | {"merged": record},
                proposal_id=approving,
            ))  # fmt: skip
            outcome[p.index] = (twin.node_id, False, twin.node_id)
        actor = {"role": principal.role.value, "agentId": principal.agent_id}
        nodes: dict[str, dict[str, Any]] = {}
        if rows:
            # The new notes' mutations are written by the create statement itself, each
            # linked to its note as it is made (1,000 index seeks fewer per batch).
            creates = [
                journal.Change(
                    "note.create", "Knowledge", r["id"], None, created_state(r), proposal_id=approving
                )
                for r in rows
            ]
            journaled = journal.inline(gated, principal, creates)
            for row, mutation in zip(rows, journaled.pop("mutations"), strict=True):
                row["mutation"] = mutation
            created = await gated.run(
                "queries/knowledge/notes_create",
                rows=rows,
                tenantKey=tenant_key(gated.user_id),
                embeddingModel=self._embedder.model_id,
                **journaled,
            )
            # The new notes are known here; only their time comes from the database.
            stamps = {r["id"]: iso_millis(r["createdAt"]) for r in created}
            for row in rows:
                nodes[row["id"]] = created_note_view(
                    row, stamps[row["id"]], principal.role.value, principal.agent_id
                )
        if merge_rows:
            await gated.run("queries/knowledge/notes_merge_into", merges=merge_rows, **actor)
        if updates:  # each update's edge to the note it changes, journaled after the merges
            links = update_rows([(q.node_id, q.note) for q in pending], updates)
            changes += await link(gated, principal, links, approving)
        await journal.record_many(gated, principal, changes)
        others = sorted({node_id for node_id, _, _ in outcome.values()} - set(nodes))
        if others:
            for row in await gated.run_listed(
                "queries/knowledge/notes_by_ids", ids=others, withEmbedding=False
            ):
                if not principal.sees(row["node"]["id"], row["node"]["tags"]):
                    # An id taken by a note this scoped key cannot see: refused, nothing written.
                    raise Conflict(
                        f"note id {row['node']['id']!r} is taken outside this key's scope; use another id",
                        field="id",
                    )
                nodes[row["node"]["id"]] = note_view(row["node"])
        return [
            CreateResult(node=None, created=False, proposal=proposals[i])
            if i in proposals
            else CreateResult(
                node=nodes[outcome[i][0]],
                created=outcome[i][1],
                merged_into=outcome[i][2],
                already_merged=i in merged_earlier,
                supersedes=linked(updates, i, EdgeType.SUPERSEDES),
                conflicts_with=linked(updates, i, EdgeType.CONFLICTS_WITH),
            )
            for i in range(len(pending))
        ]

    @staticmethod
    async def _propose_create(
        gated: Gated,
        principal: Principal,
        p: PendingNote,
        why: dict[str, Any],
        fields: Iterable[str],
        held_by: Iterable[str | None],
        batch: bool,
    ) -> dict[str, Any]:
        """An agent's create held back by what a person wrote, corrected or deleted, stored as
        a proposal. A change a person rejected is refused (409) alone; in a batch, that item
        answers with the rejected proposal and the others are written."""
        payload = {"note": create_payload(p.note, p.node_id)} | why
        try:
            return await corrections.propose(
                gated, principal, op="note.create", target_id=p.node_id if p.note.id else None,
                payload=payload, fields=fields, corrections=held_by,
            )  # fmt: skip
        except corrections.Rejected as rejected:
            if not batch:
                raise
            return rejected.proposal


def _revives(principal: Principal, twin: dict[str, Any]) -> dict[str, Any]:
    """What a proposal says of the taken-away text a create restates: a scoped key is not
    told which note it was (it may lie outside the scope)."""
    if principal.scope is None:
        return twin
    return {k: v for k, v in twin.items() if k != "targetId"}
