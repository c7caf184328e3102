"""The journal: every change of a user's memory as a ``Mutation``, in the same transaction.

A mutation records who (role, agent, key, and the session of the request's
``X-Session-ID``), what (an operation on a target) and the state before and after,
numbered by the write gate's sequence and, within one write, by its part (a batch of
1,000 notes is one write of 1,000 mutations, one per note, so each can be undone alone),
so the journal's order is the order in which the user's writes committed. It is written
through :class:`Gated` only: a write that fails leaves no mutation, and a mutation never
exists without its write.

States are JSON text of the fields an undo needs (never embeddings: an undo that brings
text back embeds it again), written by :func:`graph.core.states.state_json` (text as it
was written, so a forget's match finds it). What is journaled, and what each operation's before and
after hold, is listed in ``docs/journal.md``.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ctxnet.wire.cursors import MAX_SEQ
from graph.core.db import Database
from graph.core.errors import InvalidInput
from graph.core.gate import Gated
from graph.core.principals import Principal, Role, Scope
from graph.core.scopes import require_unscoped
from graph.core.states import state_json
from graph.core.values import plain


@dataclass(frozen=True)
class Change:
    """One change a write makes, as the journal records it."""

    op: str
    target_type: str
    target_id: str
    before: Any = None
    after: Any = None
    #: The mutation this change undoes (an undo is journaled as the change it makes).
    undoes: str | None = None
    #: The proposal a person approved, when this change is one.
    proposal_id: str | None = None
    #: The vector of what the change removed and the model that made it (a note's delete
    #: keeps it, so an undo brings the note back without embedding it again).
    vector: tuple[list[float], str | None] | None = None
    #: Fields the change restates as they stood: a person's word on what an agent wrote (a
    #: confirmation), written as the person's though its value does not change.
    confirms: frozenset[str] = frozenset()


def _text(state: Any) -> str | None:
    return state_json(state) if state is not None else None


async def record_many(gated: Gated, principal: Principal, changes: Sequence[Change]) -> list[str]:
    """Journal ``changes`` in ``gated``'s transaction, in one statement; their ids, in order."""
    if not changes:
        return []
    rows = [
        {
            "id": uuid.uuid4().hex,
            "part": part,
            "op": c.op,
            "targetType": c.target_type,
            "targetId": c.target_id,
            "before": _text(c.before),
            "after": _text(c.after),
            "undoes": c.undoes,
            "proposalId": c.proposal_id,
            "written": written_fields(c),
            "vector": c.vector[0] if c.vector else None,
            "vectorModel": c.vector[1] if c.vector else None,
        }
        | _link(c, gated.user_id)
        for part, c in enumerate(changes, start=gated.journaled)
    ]
    gated.journaled += len(rows)
    await gated.run("queries/core/mutation_record", rows=rows, seq=gated.seq, **_actor(principal))
    return [str(r["id"]) for r in rows]


def inline(gated: Gated, principal: Principal, changes: Sequence[Change]) -> dict[str, Any]:
    """The journal of ``changes`` for a statement that writes the mutations itself, beside
    the nodes it creates (the bulk create links each new note to its mutation without an
    index seek; see ``queries/knowledge/notes_create``): ``mutations`` (a row per change, in
    order, each ``{id, part, after}``) and the actor's parameters. The statement must
    create each as ``record_many`` would."""
    rows = [
        {
            "id": uuid.uuid4().hex,
            "part": part,
            "after": _text(c.after),
            "proposalId": c.proposal_id,
            "written": written_fields(c),
        }
        for part, c in enumerate(changes, start=gated.journaled)
    ]
    gated.journaled += len(rows)
    return {"mutations": rows, "seq": gated.seq} | _actor(principal)


def written_fields(change: Change) -> list[str]:
    """The fields of its target a change writes: every field of what it creates, the fields
    whose value it changes or that it confirms otherwise, none for a delete. Who wrote each
    field last is kept on the target from these (``personFields``, see
    ``queries/core/mutation_record``), so it holds however long the journal grows and
    whichever path wrote."""
    after = change.after
    if not isinstance(after, dict):
        return []
    before = change.before if isinstance(change.before, dict) else {}
    return sorted(k for k, v in after.items() if k not in before or before[k] != v or k in change.confirms)


def _actor(principal: Principal) -> dict[str, Any]:
    return {
        "role": principal.role.value,
        "agentId": principal.agent_id,
        "keyId": principal.key_id,
        "sessionId": principal.session_id,
    }


def _link(change: Change, user_id: str) -> dict[str, Any]:
    """Where the mutation_record statement finds the target to link (one key per kind)."""
    kind, target = change.target_type, change.target_id
    ends = target.split(" ") if kind == "Edge" else []
    return {
        "knowledgeIds": [target] if kind == "Knowledge" else [ends[0], ends[-1]] if ends else [],
        "threadId": target if kind == "Thread" else None,
        "messageId": target if kind == "Message" else None,
        "insightId": target if kind == "Insight" else None,
        "profileOf": user_id if kind == "Profile" else None,
        "sessionOf": target if kind == "Session" else None,
        "actionId": target if kind == "PendingAction" else None,
        "correctionId": target if kind == "Correction" else None,
        "proposalOf": target if kind == "Proposal" else None,
        "goalId": target if kind == "Goal" else None,
        "skillId": target if kind == "Skill" else None,
        "pageSlug": target if kind == "WikiPage" else None,
    }


async def record(
    gated: Gated,
    principal: Principal,
    *,
    op: str,
    target_type: str,
    target_id: str,
    before: Any,
    after: Any,
) -> str:
    """Journal one change in ``gated``'s transaction; returns the mutation's id."""
    [mutation_id] = await record_many(gated, principal, [Change(op, target_type, target_id, before, after)])
    return mutation_id


def state(text: str | None) -> Any:
    """A journaled state as the value it was."""
    return json.loads(text) if text is not None else None


def mutation_view(row: dict[str, Any], user_id: str) -> dict[str, Any]:
    """A mutation as the API shows it."""
    m = plain(row)
    view = {
        "id": m["id"], "seq": m["seq"], "part": m.get("part") or 0, "at": m["at"],
        "actor": {"userId": user_id, "role": m["role"], "agentId": m.get("agentId"),
                  "sessionId": m.get("sessionId")},
        "op": m["op"], "targetType": m["targetType"], "targetId": m["targetId"],
        "before": state(m.get("before")), "after": state(m.get("after")),
    }  # fmt: skip
    for key in ("undoes", "undoneBy", "proposalId", "scrubbed"):
        if m.get(key) is not None:
            view[key] = m[key]
    return view


async def history(gated: Gated, target_id: str, *, after_seq: int | None = None) -> list[dict[str, Any]]:
    """Every mutation of one target (newest first), or those after ``after_seq``, as the API
    shows them, read under the write gate (so nothing can be added meanwhile)."""
    rows = await gated.run(
        "queries/core/mutations_of_target", targetId=target_id, afterSeq=after_seq, beforeSeq=None,
        beforePart=None, since=None, role=None, sessionId=None, limit=HISTORY_LIMIT, scope=None,
    )  # fmt: skip
    return [mutation_view(row["mutation"], gated.user_id) for row in rows]


async def later(gated: Gated, mutation: dict[str, Any]) -> list[dict[str, Any]]:
    """The mutations of ``mutation``'s target journaled after it (newest first)."""
    since = await history(gated, mutation["targetId"], after_seq=mutation["seq"] - 1)
    return [m for m in since if (m["seq"], m["part"]) > (mutation["seq"], mutation["part"])]


async def find(db: Database, principal: Principal, mutation_id: str) -> dict[str, Any] | None:
    """One mutation of the caller's journal, or ``None`` (for a scoped key, also one of a note
    or edge outside its scope, or of anything that is not a note or an edge)."""
    rows = await db.read(
        "queries/core/mutation_get", userId=principal.user_id, id=mutation_id, scope=Scope.of(principal.scope)
    )
    return mutation_view(rows[0]["mutation"], principal.user_id) if rows else None


async def kept_vector(db: Database, principal: Principal, mutation_id: str) -> tuple[list[float], str] | None:
    """The vector a mutation kept of what it removed (a note's delete) and the model that
    made it, if it kept one."""
    require_unscoped(principal, "undo (what it restores may reach past the scope)")
    rows = await db.read("queries/core/mutation_vector", userId=principal.user_id, id=mutation_id)
    if not rows or rows[0]["vector"] is None:
        return None
    return list(rows[0]["vector"]), str(rows[0]["model"])


async def of_write(db: Database, principal: Principal, seq: int) -> list[dict[str, Any]]:
    """The mutations of one write of the caller's (``{id, op, targetType, targetId, part}``),
    in their order."""
    require_unscoped(principal, "undo (what it restores may reach past the scope)")
    rows = await db.read("queries/core/mutations_of_write", userId=principal.user_id, seq=seq)
    return [dict(r) for r in rows]


async def get(gated: Gated, mutation_id: str) -> dict[str, Any] | None:
    """One mutation of the gate's user, read under the gate, or ``None``."""
    rows = await gated.run("queries/core/mutation_get", id=mutation_id, scope=None)
    return mutation_view(rows[0]["mutation"], gated.user_id) if rows else None


#: How many of a thing's latest mutations the write paths read (who wrote which field).
HISTORY_LIMIT = 1_000


def cursor_of(mutation: dict[str, Any]) -> str:
    """The cursor of the journal's page that continues after ``mutation`` (as listed)."""
    return f"{mutation['seq']}.{mutation['part']}"


def _decode_cursor(cursor: str) -> tuple[int, int]:
    seq, _, part = cursor.partition(".")
    if not (seq.isdigit() and part.isdigit()) or int(seq) > MAX_SEQ or int(part) > MAX_SEQ:
        raise InvalidInput("cursor is not one this API issued", field="cursor")
    return int(seq), int(part)


async def list_mutations(
    db: Database,
    principal: Principal,
    *,
    since: str | None = None,
    target_id: str | None = None,
    role: Role | None = None,
    session_id: str | None = None,
    limit: int = 50,
    cursor: str | None = None,
) -> tuple[list[dict[str, Any]], str | None]:
    """A page of the caller's journal, newest first, and the cursor of the next page."""
    before_seq, before_part = _decode_cursor(cursor) if cursor else (None, None)
    params = {
        "userId": principal.user_id,
        "beforeSeq": before_seq,
        "beforePart": before_part,
        "since": since,
        "role": role.value if role else None,
        "sessionId": session_id,
        "limit": limit + 1,
        "scope": Scope.of(principal.scope),
    }
    if target_id is not None:  # a thing's history: through the (userId, targetId) index
        rows = await db.read("queries/core/mutations_of_target", targetId=target_id, afterSeq=None, **params)
    else:
        rows = await db.read_listed("queries/core/mutations_list", **params)
    items = [mutation_view(row["mutation"], principal.user_id) for row in rows[:limit]]
    more = len(rows) > limit
    return items, cursor_of(items[-1]) if more else None
