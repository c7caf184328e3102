"""A person's word outranks an agent's: corrections, what a person wrote, and proposals.

A person's update or delete of a note that an agent (or a pipeline of the service) wrote
is a ``Correction``: the mutation, the fields corrected, what the agent had and what the
person set, and the reason given (``X-Change-Reason``). A person writing over a person is
not one. Who wrote each field last is kept on the note itself (``personFields``, written
by the journal with every mutation: :func:`graph.core.journal.written_fields`), so it
holds whichever path wrote and however long the journal grows.

Under the write gate, before any non-human write is applied:

* a change of a field a person wrote or corrected (PATCH, a dedupe merge that would move
  its confidence or tags, a supersedes edge that would flip its status, the delete of
  such a note, an undo) is not applied: it is stored as a ``Proposal`` that a person
  approves or rejects (:mod:`graph.knowledge.proposals`). A note's title and content are
  one statement: a person who wrote or corrected either holds both, the note's status and
  its payload (``data``);
* a write of text that is a twin of text a person took away from an agent (a note they
  deleted, title and content they corrected away) becomes a proposal too, whether it is a
  create or a PATCH of another note. Twins are found by the service's own reading of the
  text (its embedding, cosine >= the dedupe threshold) and by a normalised-text
  fingerprint, never by a vector the agent supplied;
* a change a person rejected is not proposed again: the same change (same target, same
  text) answers with the rejected proposal (:class:`Rejected`, a 409).

Each session sees the corrections of the last days (a setting, 7 by default) until it
acknowledges them, with the action it took.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from graph.core import journal
from graph.core.db import Database
from graph.core.embeddings import Embedder
from graph.core.errors import Conflict, NotFound
from graph.core.gate import Gated, WriteGate
from graph.core.principals import NO_AGENT, Principal, Role, Scope
from graph.core.states import state_json
from graph.core.values import check_id, decode_seq_cursor, plain
from graph.core.vectors import cosine_from_score, score_from_cosine
from graph.knowledge.models import NOTE_FIELDS

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


def person_fields(note: dict[str, Any]) -> set[str]:
    """The fields of a note (a stored note or its snapshot) a person wrote last; a note from
    before this was kept counts as its creator's."""
    kept = note.get("personFields")
    if kept is not None:
        return set(kept) & set(NOTE_FIELDS)
    return set(NOTE_FIELDS) if note.get("createdByRole") == Role.HUMAN.value else set()


def agent_written(note: dict[str, Any]) -> set[str]:
    """The fields of a note whose latest writer was not a person (an open valid time, or no
    payload, was written by no one)."""
    unset = {k for k in ("validFrom", "validUntil", "data") if note.get(k) is None}
    return set(NOTE_FIELDS) - person_fields(note) - unset


async def corrected(gated: Gated, node_ids: Sequence[str]) -> dict[str, dict[str, str]]:
    """For each note with active corrections, its corrected fields, each with the newest
    correction that covers it."""
    return {
        node_id: {k: v for k, v in fields.items() if v is not None}
        for node_id, fields in (await held(gated, node_ids, written=False)).items()
        if any(v is not None for v in fields.values())
    }


#: A field a person wrote (not corrected): no correction holds it, the person's own write does.
PERSON_WRITTEN: str | None = None


async def held(
    gated: Gated, node_ids: Sequence[str], *, written: bool = True
) -> dict[str, dict[str, str | None]]:
    """For each note with fields an agent may not change alone, those fields, each with the
    newest correction that covers it, or :data:`PERSON_WRITTEN` (``None``) for a field a
    person wrote (``written``) that no correction covers."""
    if not node_ids:
        return {}
    rows = await gated.run("queries/knowledge/held_fields", targetIds=list(node_ids))
    fields: dict[str, dict[str, str | None]] = {}
    for row in rows:
        mine = fields.setdefault(row["targetId"], {})
        for correction in row["corrections"]:  # newest first
            for name in correction["fields"]:
                mine.setdefault(name, correction["id"])
        if written and row["note"] is not None:
            for name in sorted(person_fields(row["note"])):
                mine.setdefault(name, PERSON_WRITTEN)
        # A note's text is one statement: a person who wrote or corrected its title or its
        # content vouches for both, for its standing (an agent's supersedes edge or archive
        # would hide what the person said) and for the payload kept with it (``data``).
        said = [mine[name] for name in ("content", "title") if name in mine]
        if said:
            for name in ("title", "content", "status", "data"):
                mine.setdefault(name, said[0])
    return {k: v for k, v in fields.items() if v}


def correction_ids(holders: Iterable[str | None]) -> list[str]:
    """The corrections among what holds some fields (a person's own write names none)."""
    return sorted({h for h in holders if h is not None})


def fingerprint(title: str, content: str) -> str:
    """A note's text with case, accents, punctuation and spacing taken out, hashed: the same
    statement written again matches it exactly, whatever vector comes with it."""
    return fingerprint_of(f"{title}\n{content}")


def fingerprint_of(text: str) -> str:
    """:func:`fingerprint` of a note's text as it is embedded (title, newline, content)."""
    text = unicodedata.normalize("NFKD", text).casefold()
    words = re.findall(r"\w+", "".join(c for c in text if not unicodedata.combining(c)))
    return hashlib.sha256(" ".join(words).encode()).hexdigest()


@dataclass(frozen=True)
class Reading:
    """The service's own reading of a text an agent writes: its embedding, computed here
    (never the vector the agent sent), and its fingerprint."""

    vector: list[float] | None
    fingerprint: str


async def deleted_twins(
    gated: Gated, rows: Sequence[tuple[int, Reading]], threshold: float
) -> dict[int, dict[str, Any]]:
    """For each (index, reading), the agent text a person took away that it restates: the
    same fingerprint, or the nearest at cosine >= ``threshold``:
    ``{correctionId, targetId, similarity}``."""
    if not rows:
        return {}
    found = await gated.run(
        "queries/knowledge/corrections_deleted_twins",
        rows=[{"index": i, "embedding": r.vector, "fingerprint": r.fingerprint} for i, r in rows],
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


async def has_taken_text(gated: Gated) -> bool:
    """Whether the user has any active correction that took agent text away (only then
    does an agent's write need the service's own reading of its text)."""
    [row] = await gated.run("queries/knowledge/corrections_text_any")
    return bool(row["any"])


#: A vector a correction keeps, with the text and the model it came from.
Kept = tuple[list[float], str, str]


#: The service's own reading of a stored note's text: title, content, vector, model.
OwnReading = tuple[str, str, list[float], str]


async def read_stored(
    db: Database, embedder: Embedder, principal: Principal, node_id: str
) -> OwnReading | None:
    """Before a person's write that may take an agent's text away (a delete, a PATCH, an
    undo): the service's own vector of the note's text, when the vector stored with it came
    from the client (``None`` otherwise: the stored vector is the service's own). Done
    before the gate, as all embedding is."""
    if is_agent(principal):
        return None
    rows = await db.read("queries/knowledge/note_text", userId=principal.user_id, id=node_id)
    if not rows or not rows[0]["vectorSupplied"]:
        return None
    title, content = rows[0]["title"], rows[0]["content"]
    [vector] = await embedder.embed([f"{title}\n{content}"])
    return title, content, vector, embedder.model_id


def kept_vector(note: dict[str, Any], own: OwnReading | None = None) -> Kept | None:
    """What a correction keeps of an agent's note it took away: the service's own vector of
    its text (``own``, read for a note whose stored vector came from the client, while the
    text is still the one read) or else the stored one, with the text and model it came
    from; ``note`` is a snapshot read with its embedding, from which both are removed (they
    are never journaled)."""
    vector = note.pop("embedding", None)
    model = note.pop("embeddingModel", None)
    if own is not None and (own[0], own[1]) == (note["title"], note["content"]):
        vector, model = own[2], own[3]
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
    target_type: str = "Knowledge",
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
        targetType=target_type,
        targetId=node_id,
        fields=names,
        before=state_json({k: before.get(k) for k in names}),
        after=state_json({k: after.get(k) for k in names}) if after is not None else None,
        reason=principal.reason,
        keyId=principal.key_id,
        embedding=embedding[0] if embedding else None,
        embeddedText=embedding[1] if embedding else None,
        embeddingModel=embedding[2] if embedding else None,
        fingerprint=fingerprint_of(embedding[1]) if embedding else None,
    )
    return correction_id


class Rejected(Conflict):
    """The change was proposed before and a person rejected it: it is not proposed again."""

    def __init__(self, proposal: dict[str, Any]) -> None:
        decided = proposal.get("decidedAt")
        super().__init__(
            f"a person rejected this change (proposal {proposal['id']!r}"
            + (f", {decided}" if decided else "")
            + "); it is not proposed again",
            field="id",
        )
        self.proposal = proposal


def change_key(op: str, target_id: str | None, payload: dict[str, Any]) -> str:
    """What makes two proposals the same change: a create's text (whatever id it asks for),
    otherwise the operation, its target and what it sets. A digest, not a stored state: its
    JSON keeps ``json.dumps``' ASCII escapes, so the keys of changes rejected before match."""
    note = payload.get("note") if op == "note.create" else None
    if isinstance(note, dict):
        target, what = "", fingerprint(note["title"], note["content"])
    else:
        target, what = target_id or "", json.dumps(payload, sort_keys=True)
    return hashlib.sha256(f"{op}\x00{target}\x00{what}".encode()).hexdigest()


async def propose(
    gated: Gated,
    principal: Principal,
    *,
    op: str,
    target_id: str | None,
    payload: dict[str, Any],
    fields: Iterable[str],
    corrections: Iterable[str | None],
) -> dict[str, Any]:
    """Store a non-human write as a proposal for a person (journaled as ``proposal.create``);
    the same write by the same proposer, still pending, is answered with that proposal, and
    the same change a person rejected is :class:`Rejected`."""
    text = state_json(payload)
    key = change_key(op, target_id, payload)
    for row in await gated.run(
        "queries/knowledge/proposal_same", op=op, targetId=target_id, payload=text, changeKey=key,
        role=principal.role.value, agentId=principal.agent_id,
    ):  # fmt: skip
        same = proposal_view(row["proposal"])
        if same["status"] == "rejected":
            raise Rejected(same)
        return same
    proposal_id = uuid.uuid4().hex
    rows = await gated.run(
        "queries/knowledge/proposal_record",
        id=proposal_id,
        seq=gated.seq,
        op=op,
        targetId=target_id,
        payload=text,
        changeKey=key,
        fields=sorted(set(fields)),
        correctionIds=correction_ids(corrections),
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
        "id": c["id"], "kind": c["kind"], "status": c["status"],
        "targetType": c.get("targetType") or "Knowledge", "targetId": c["targetId"],
        "fields": c["fields"], "mutationId": c["mutationId"],
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
        """Newest first. ``unacknowledged``: the active ones of the window that ``session_id``
        has not acknowledged yet; without a session, those no session has acknowledged: no
        session of the caller's agent (an agent's key), no session at all (a person's key)."""
        if session_id is not None:
            check_id(session_id, "sessionId")
        rows = await self._db.read_listed(
            "queries/knowledge/corrections_list",
            userId=principal.user_id,
            unacknowledgedBy=session_id if unacknowledged else None,
            agentId=None if principal.role == Role.HUMAN else principal.agent_id or NO_AGENT,
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
