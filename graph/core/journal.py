"""The journal: every change of a user's memory as a ``Mutation``, in the same transaction.

A mutation records who (role, agent, key, and the session of the request's
``X-Session-ID``), what (an operation on a target) and the state
before and after, numbered by the write gate's sequence, so the journal's order is the
order in which the user's writes committed. It is written through :class:`Gated` only:
a write that fails leaves no mutation, and a mutation never exists without its write.
Journaled today: the profile, sessions (start, end) and pending actions (acknowledge,
carry); the journal issue brings every other write path. One write records one mutation.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from graph.core.db import Database
from graph.core.gate import Gated
from graph.core.principals import Principal, Role
from graph.core.values import decode_seq_cursor, plain


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
    mutation_id = uuid.uuid4().hex
    await gated.run(
        "queries/core/mutation_record",
        id=mutation_id,
        seq=gated.seq,
        role=principal.role.value,
        agentId=principal.agent_id,
        keyId=principal.key_id,
        sessionId=principal.session_id,
        op=op,
        targetType=target_type,
        targetId=target_id,
        before=json.dumps(before, sort_keys=True) if before is not None else None,
        after=json.dumps(after, sort_keys=True) if after is not None else None,
    )
    return mutation_id


def _state(text: str | None) -> Any:
    return json.loads(text) if text is not None else None


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
    rows = await db.read(
        "queries/core/mutations_list",
        userId=principal.user_id,
        beforeSeq=decode_seq_cursor(cursor) if cursor else None,
        since=since,
        targetId=target_id,
        role=role.value if role else None,
        sessionId=session_id,
        limit=limit + 1,
    )
    items = []
    for row in rows[:limit]:
        m = plain(row["mutation"])
        items.append({
            "id": m["id"], "seq": m["seq"], "at": m["at"],
            "actor": {"userId": principal.user_id, "role": m["role"], "agentId": m.get("agentId"),
                      "sessionId": m.get("sessionId")},
            "op": m["op"], "targetType": m["targetType"], "targetId": m["targetId"],
            "before": _state(m.get("before")), "after": _state(m.get("after")),
        })  # fmt: skip
    more = len(rows) > limit
    return items, str(items[-1]["seq"]) if more else None
