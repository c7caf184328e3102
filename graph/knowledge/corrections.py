"""Human corrections outrank agent writes.

A person's update or delete of a note that an agent (or a pipeline of the service) wrote
is a ``Correction``: the mutation, the fields corrected, what the agent had and what the
person set, and the reason given (``X-Change-Reason``). A person writing over a person is
not one. Who wrote a field last is read from the note's journal, so it holds whichever
path wrote it.

Under the write gate, before any non-human write is applied:

* a change of a corrected field of a note (PATCH, a dedupe merge that would move its
  confidence or tags, the delete of a corrected note, an undo) is not applied: it is
  stored as a ``Proposal`` that a person approves or rejects
  (:mod:`graph.knowledge.proposals`);
* a create whose vector is a twin (cosine >= the dedupe threshold) of a note a person
  deleted from an agent becomes a proposal too, so a deleted fact is not written back.

Each session sees the corrections of the last days (a setting, 7 by default) until it
acknowledges them, with the action it took.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Sequence
from typing import Any

from graph.core import journal
from graph.core.db import Database
from graph.core.errors import InvalidInput, NotFound
from graph.core.gate import Gated, WriteGate
from graph.core.principals import Principal, Role, Scope
from graph.core.values import check_id, decode_seq_cursor, plain
from graph.core.vectors import cosine_from_score, score_from_cosine

#: The fields of a note a correction can cover.
NOTE_FIELDS = ("title", "content", "type", "source", "confidence", "tags", "status")
#: The fields a dedupe merge changes on the note it folds into.
MERGE_FIELDS = ("confidence", "tags")


def is_agent(principal: Principal) -> bool:
    """Agents and the service's own pipelines: their writes yield to corrections."""
    return principal.role != Role.HUMAN


def touched(mutation: dict[str, Any]) -> set[str]:
    """The note fields a journaled change wrote."""
    op = mutation["op"]
    if op in ("note.create", "note.delete"):
        return set(NOTE_FIELDS)
    if op in ("note.update", "note.merge", "note.unmerge", "note.status"):
        return set(mutation.get("after") or {}) & set(NOTE_FIELDS)
    return set()


async def agent_written(gated: Gated, node_id: str, created_by_role: str | None) -> set[str]:
    """The fields of a note whose latest writer was not a person (from its journal; a note
    older than the journal counts by who created it)."""
    writers: dict[str, str] = {}
    for mutation in await journal.history(gated, node_id):  # newest first
        for name in touched(mutation):
            writers.setdefault(name, mutation["actor"]["role"])
        if mutation["op"] == "note.create":
            break  # everything before it is another note's life
    return {
        name
        for name in NOTE_FIELDS
        if writers.get(name, created_by_role or Role.HUMAN.value) != Role.HUMAN.value
    }


async def corrected(gated: Gated, node_ids: Sequence[str]) -> dict[str, dict[str, str]]:
    """For each note with active corrections, its corrected fields, each with the newest
    correction that covers it."""
    if not node_ids:
        return {}
    rows = await gated.run("queries/knowledge/corrections_of_targets", targetIds=list(node_ids))
    fields: dict[str, dict[str, str]] = {}
    for row in rows:  # newest first
        for name in row["fields"]:
            fields.setdefault(row["targetId"], {}).setdefault(name, row["id"])
    return fields


async def deleted_twins(
    gated: Gated, rows: Sequence[tuple[int, list[float]]], threshold: float
) -> dict[int, dict[str, Any]]:
    """For each (index, vector), the nearest note a person deleted from an agent at cosine >=
    ``threshold``: ``{correctionId, targetId, similarity}``."""
    if not rows:
        return {}
    found = await gated.run(
        "queries/knowledge/corrections_deleted_twins",
        rows=[{"index": i, "embedding": v} for i, v in rows],
        minScore=score_from_cosine(threshold) - 1e-9,
    )
    return {
        r["index"]: {
            "correctionId": r["correctionId"],
            "targetId": r["targetId"],
            "similarity": cosine_from_score(r["score"]),
        }
        for r in found
        if r["correctionId"] is not None
    }


#: A vector a correction keeps, with the text and the model it came from.
Kept = tuple[list[float], str, str]


def kept_vector(note: dict[str, Any]) -> Kept | None:
    """What a correction keeps of an agent's note it took away: the note's vector with the
    text and model it came from; ``note`` is a snapshot read with its embedding, from which
    both are removed (they are never journaled)."""
    vector = note.pop("embedding", None)
    model = note.pop("embeddingModel", None)
    if vector is None:
        return None
    return vector, f"{note['title']}\n{note['content']}", model


async def record(
    gated: Gated,
    principal: Principal,
    *,
    mutation_id: str,
    kind: str,
    node_id: str,
    fields: Iterable[str],
    before: dict[str, Any],
    after: dict[str, Any] | None,
    embedding: Kept | None = None,
) -> str:
    """Store a person's correction of agent-written fields (``kind`` update or delete), with
    the ``(vector, text it was computed from, model)`` of the agent text it took away."""
    names = sorted(fields)
    correction_id = uuid.uuid4().hex
    await gated.run(
        "queries/knowledge/correction_record",
        id=correction_id,
        seq=gated.seq,
        mutationId=mutation_id,
        kind=kind,
        targetId=node_id,
        fields=names,
        before=json.dumps({k: before.get(k) for k in names}, sort_keys=True),
        after=json.dumps({k: after.get(k) for k in names}, sort_keys=True) if after is not None else None,
        reason=principal.reason,
        keyId=principal.key_id,
        embedding=embedding[0] if embedding else None,
        embeddedText=embedding[1] if embedding else None,
        embeddingModel=embedding[2] if embedding else None,
    )
    return correction_id


async def propose(
    gated: Gated,
    principal: Principal,
    *,
    op: str,
    target_id: str | None,
    payload: dict[str, Any],
    fields: Iterable[str],
    corrections: Iterable[str],
) -> dict[str, Any]:
    """Store a non-human write as a proposal for a person (journaled as ``proposal.create``);
    the same write by the same proposer, still pending, is answered with that proposal."""
    text = json.dumps(payload, sort_keys=True)
    waiting = await gated.run(
        "queries/knowledge/proposal_pending_same", op=op, targetId=target_id, payload=text,
        role=principal.role.value, agentId=principal.agent_id,
    )  # fmt: skip
    if waiting:
        return proposal_view(waiting[0]["proposal"])
    proposal_id = uuid.uuid4().hex
    rows = await gated.run(
        "queries/knowledge/proposal_record",
        id=proposal_id,
        seq=gated.seq,
        op=op,
        targetId=target_id,
        payload=text,
        fields=sorted(set(fields)),
        correctionIds=sorted(set(corrections)),
        role=principal.role.value,
        agentId=principal.agent_id,
        keyId=principal.key_id,
        sessionId=principal.session_id,
    )
    proposal = proposal_view(rows[0]["proposal"])
    await journal.record_many(
        gated,
        principal,
        [journal.Change("proposal.create", "Proposal", proposal_id, None, {"op": op, "targetId": target_id})],
    )
    return proposal


def proposal_view(row: dict[str, Any]) -> dict[str, Any]:
    """A proposal as the API shows it."""
    p = plain(row)
    view = {
        "id": p["id"], "status": p["status"], "op": p["op"], "targetId": p.get("targetId"),
        "payload": json.loads(p["payload"]), "fields": p["fields"], "correctionIds": p["correctionIds"],
        "proposedBy": {"role": p["role"], "agentId": p.get("agentId"), "sessionId": p.get("sessionId")},
        "createdAt": p["createdAt"],
    }  # fmt: skip
    if p.get("decidedAt") is not None:
        view["decidedAt"] = p["decidedAt"]
        view["decision"] = {"reason": p.get("decisionReason"), "mutationIds": p.get("mutationIds") or []}
    return view


def correction_view(row: dict[str, Any]) -> dict[str, Any]:
    """A correction as the API shows it."""
    c = plain(row)
    view = {
        "id": c["id"], "kind": c["kind"], "status": c["status"], "targetType": "Knowledge",
        "targetId": c["targetId"], "fields": c["fields"], "mutationId": c["mutationId"],
        "before": json.loads(c["before"]),
        "after": json.loads(c["after"]) if c.get("after") is not None else None,
        "reason": c.get("reason"), "at": c["at"],
        "acknowledgements": [
            {k: v for k, v in ack.items() if v is not None} for ack in c.get("acks") or []
        ],
    }  # fmt: skip
    return view


class CorrectionService:
    """List a user's corrections and acknowledge them per session."""

    def __init__(self, db: Database, *, window_days: float = 7.0) -> None:
        self._db = db
        self._gate = WriteGate(db)
        self._window_days = window_days

    async def list_corrections(
        self,
        principal: Principal,
        *,
        unacknowledged: bool = False,
        session_id: str | None = None,
        target_id: str | None = None,
        limit: int = 50,
        cursor: str | None = None,
    ) -> tuple[list[dict[str, Any]], str | None]:
        """Newest first. ``unacknowledged`` (with ``session_id``): those of the window that
        session has not acknowledged yet."""
        if unacknowledged and session_id is None:
            raise InvalidInput("unacknowledged=true needs the sessionId it is for", field="sessionId")
        if session_id is not None:
            check_id(session_id, "sessionId")
        rows = await self._db.read(
            "queries/knowledge/corrections_list",
            userId=principal.user_id,
            unacknowledgedBy=session_id if unacknowledged else None,
            windowSeconds=int(self._window_days * 86_400) if unacknowledged else None,
            targetId=target_id,
            beforeSeq=decode_seq_cursor(cursor) if cursor else None,
            limit=limit + 1,
            scope=Scope.of(principal.scope),
        )
        items = [correction_view(r["correction"]) for r in rows[:limit]]
        more = len(rows) > limit
        return items, str(rows[limit - 1]["seq"]) if more else None

    async def acknowledge(
        self, principal: Principal, correction_id: str, *, session_id: str, action_taken: str
    ) -> dict[str, Any]:
        """Record that ``session_id`` has seen the correction and what it did (idempotent: a
        second acknowledgement by the same session keeps the first). The session must be one
        of the caller's own agent, open or ended (a person's key: any session of its user),
        else :class:`NotFound` on ``sessionId``: no key acknowledges for another agent, which
        would then never be shown the correction."""
        check_id(correction_id)
        check_id(session_id, "sessionId")

        async def work(gated: Gated) -> dict[str, Any]:
            about = await gated.run(
                "queries/knowledge/correction_target", id=correction_id, sessionId=session_id,
                agentId=principal.agent_id,
            )  # fmt: skip
            if not about or not principal.sees(about[0]["targetId"], about[0]["tags"]):
                raise NotFound(f"no correction {correction_id!r}", field="id")
            if not about[0]["ownSession"]:
                whose = "of this key's agent" if principal.agent_id is not None else "of this user"
                raise NotFound(f"no session {session_id!r} {whose}", field="sessionId")
            rows = await gated.run(
                "queries/knowledge/correction_ack", id=correction_id, sessionId=session_id,
                actionTaken=action_taken,
            )  # fmt: skip
            if not rows:
                raise NotFound(f"no correction {correction_id!r}", field="id")
            if rows[0]["created"]:
                await journal.record_many(gated, principal, [journal.Change(
                    "correction.ack", "Correction", correction_id, None,
                    {"sessionId": session_id, "actionTaken": action_taken},
                )])  # fmt: skip
            return correction_view(rows[0]["correction"])

        return await self._gate.write(principal.user_id, work)
