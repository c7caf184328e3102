"""Proposals: agent writes that a person's correction held back, until a person decides.

Approving applies the write as the approving person, in the same transaction that marks
the proposal approved (its mutations carry the proposal's id, and the proposal lists
them); a write that no longer applies (the note is gone, the undo is blocked) fails with
its usual 404 or 409 and leaves the proposal pending. Rejecting only records the decision.
Only people decide: an agent's key gets 403 for a decision, and a scoped key for every
operation here (a proposal may reach past the scope). Both decisions are journaled.

Proposals of writes outside the knowledge network (the profile's ``profile.*``, project
context's ``project.*``) are applied by the service that owns them, handed to
:meth:`ProposalService.approve` as an :data:`Applier` per operation: this layer cannot
import the layers above it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from graph.core import journal
from graph.core.db import Database
from graph.core.errors import Conflict, Forbidden, InvalidInput, NotFound
from graph.core.gate import Gated, WriteGate
from graph.core.principals import Principal
from graph.core.scopes import require_unscoped
from graph.core.values import check_id, decode_seq_cursor
from graph.knowledge.corrections import is_agent, proposal_view
from graph.knowledge.edge_states import edge_from_payload
from graph.knowledge.edges import EdgeService
from graph.knowledge.models import CreateResult, EdgeType
from graph.knowledge.note_states import note_from_payload, patch_from_props
from graph.knowledge.notes import NoteService
from graph.knowledge.undo import UndoService

#: The statuses a proposal goes through.
STATUSES = ("pending", "approved", "rejected")
#: Applies an approved proposal of another layer's write as the person who approved it:
#: ``(principal, proposal, then)``, where ``then`` must run in the write's transaction.
Applier = Callable[[Principal, dict[str, Any], Callable[[Gated, Any], Awaitable[None]]], Awaitable[None]]


class ProposalService:
    """List, approve and reject the caller's proposals."""

    def __init__(self, db: Database, notes: NoteService, edges: EdgeService, undo: UndoService) -> None:
        self._db = db
        self._gate = WriteGate(db)
        self._notes = notes
        self._edges = edges
        self._undo = undo

    async def list_proposals(
        self, principal: Principal, *, status: str | None = None, limit: int = 50, cursor: str | None = None
    ) -> tuple[list[dict[str, Any]], str | None]:
        """Newest first, optionally of one status."""
        require_unscoped(principal, "proposals")
        before_seq, before_id = _decode_cursor(cursor) if cursor else (None, None)
        rows = await self._db.read_listed(
            "queries/knowledge/proposals_list",
            userId=principal.user_id,
            status=status,
            beforeSeq=before_seq,
            beforeId=before_id,
            limit=limit + 1,
        )
        items = [proposal_view(r["proposal"]) for r in rows[:limit]]
        if len(rows) <= limit:
            return items, None
        last = rows[limit - 1]
        return items, f"{last['seq']}.{last['proposal']['id']}"

    async def get(self, principal: Principal, proposal_id: str) -> dict[str, Any]:
        """One proposal (404 for none, or another user's)."""
        require_unscoped(principal, "proposals")
        rows = await self._db.read(
            "queries/knowledge/proposal_get", userId=principal.user_id, id=check_id(proposal_id)
        )
        if not rows:
            raise NotFound(f"no proposal {proposal_id!r}", field="id")
        return proposal_view(rows[0]["proposal"])

    async def _decidable(self, principal: Principal, proposal_id: str) -> dict[str, Any]:
        if is_agent(principal):
            raise Forbidden("only a person decides a proposal; this key is an agent's")
        proposal = await self.get(principal, proposal_id)
        if proposal["status"] != "pending":
            raise Conflict(f"proposal {proposal_id!r} was already {proposal['status']}", field="id")
        return proposal

    async def _decide(
        self, gated: Gated, principal: Principal, proposal_id: str, status: str, reason: str | None
    ) -> dict[str, Any]:
        """Mark the proposal decided under the gate (409 when decided meanwhile) and journal it."""
        rows = await gated.run(
            "queries/knowledge/proposal_decide", id=proposal_id, status=status, reason=reason,
            seq=gated.seq, keyId=principal.key_id,
        )  # fmt: skip
        if not rows:
            raise Conflict(f"proposal {proposal_id!r} was decided meanwhile", field="id")
        change = journal.Change(
            f"proposal.{'approve' if status == 'approved' else 'reject'}", "Proposal", proposal_id,
            {"status": "pending"}, {"status": status, "reason": reason},
        )  # fmt: skip
        await journal.record_many(gated, principal, [change])
        return proposal_view(rows[0]["proposal"])

    async def approve(
        self,
        principal: Principal,
        proposal_id: str,
        reason: str | None,
        *,
        appliers: Mapping[str, Applier] | None = None,
    ) -> dict[str, Any]:
        """Apply the proposed write as this person and mark the proposal approved, together;
        ``appliers`` apply the operations of other layers (by ``op``)."""
        require_unscoped(principal, "proposals")
        proposal = await self._decidable(principal, proposal_id)
        decided: dict[str, Any] = {}

        async def then(gated: Gated, _: Any) -> None:
            decided.update(await self._decide(gated, principal, proposal_id, "approved", reason))

        async def then_create(gated: Gated, _: list[CreateResult]) -> None:
            await then(gated, None)

        op, target, payload = proposal["op"], proposal.get("targetId"), proposal["payload"]
        if appliers and op in appliers:
            await appliers[op](principal, proposal, then)
        elif op == "note.create":
            note = note_from_payload(payload["note"])
            await self._notes.create(principal, [note], batch=False, then=then_create, approving=proposal_id)
        elif op == "note.update":
            assert target is not None  # noqa: S101 - an update names its note
            patch = patch_from_props(payload["patch"])
            await self._notes.update(principal, target, patch, approving=proposal_id, then=then)
        elif op == "note.delete":
            assert target is not None  # noqa: S101 - a delete names its note
            await self._notes.delete(principal, target, approving=proposal_id, then=then)
        elif op == "edge.connect":
            edges = [edge_from_payload(e) for e in payload["edges"]]
            await self._edges.connect(
                principal, edges, batch=len(edges) > 1, approving=proposal_id, then=then
            )
        elif op == "edge.disconnect":
            await self._edges.disconnect(
                principal, payload["sourceId"], EdgeType(payload["type"]), payload["targetId"],
                approving=proposal_id, then=then,
            )  # fmt: skip
        elif op == "undo":
            mutation = await journal.find(self._db, principal, payload["mutationId"])
            if mutation is None:
                raise Conflict(f"the mutation to undo, {payload['mutationId']!r}, is gone", field="id")
            await self._undo.undo(principal, mutation, approving=proposal_id, then=then)
        else:  # another layer's write, and its service was not handed over
            raise Conflict(f"a {op} proposal is not applied here", field="id")
        return decided

    async def reject(self, principal: Principal, proposal_id: str, reason: str | None) -> dict[str, Any]:
        """Record that a person turned the proposal down; nothing else changes."""
        require_unscoped(principal, "proposals")
        await self._decidable(principal, proposal_id)

        async def work(gated: Gated) -> dict[str, Any]:
            return await self._decide(gated, principal, proposal_id, "rejected", reason)

        return await self._gate.write(principal.user_id, work)


def _decode_cursor(cursor: str) -> tuple[int, str]:
    """``"<seq>.<id>"`` of the last proposal of a page; anything else is a 422."""
    seq, _, proposal_id = cursor.partition(".")
    if not proposal_id:
        raise InvalidInput("cursor is not one this API issued", field="cursor")
    return decode_seq_cursor(seq), check_id(proposal_id, "cursor")
