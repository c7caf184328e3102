"""The tool-call log of a session, and its replay: what an agent did, not what it wrote.

An agent records the tool calls it made in a session (tool, arguments, a summary of the
result, duration, time); replay returns them in the order they were recorded. Arguments
are stored as given (JSON, at most ``MAX_ARGUMENTS`` bytes each) and are never executed,
parsed for meaning or searched: the log is a record. Each append is one write under the
user's gate, journaled as ``toolCalls.append`` on the session (positions first and last).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ctxnet.wire.continuity.sessions import MAX_TOOL_CALLS
from graph.core import journal
from graph.core.db import Database
from graph.core.errors import Conflict, InvalidInput, NotFound
from graph.core.gate import Gated, WriteGate
from graph.core.principals import Principal
from graph.core.values import check_id, decode_seq_cursor, plain

#: Most bytes of one call's arguments, as JSON.
MAX_ARGUMENTS = 16_384


@dataclass(frozen=True)
class ToolCall:
    """One call an agent made."""

    tool: str
    arguments: Any = None
    result_summary: str | None = None
    duration_ms: int | None = None
    at: datetime | None = None
    #: Its place in the log (from 1), when the caller gives it: a repeat is recognised.
    position: int | None = None


class ToolCallService:
    """Append to and replay the calling user's sessions' tool-call logs."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._gate = WriteGate(db)

    async def append(self, principal: Principal, session_id: str, calls: list[ToolCall]) -> dict[str, Any]:
        """Record calls at the end of the session's log; ``{sessionId, first, last}``."""
        session_id = check_id(session_id)
        if not calls or len(calls) > MAX_TOOL_CALLS:
            raise InvalidInput(f"1 to {MAX_TOOL_CALLS} calls per request", field="items")
        rows = []
        for i, call in enumerate(calls):
            arguments = _stored_json(call.arguments, f"items.{i}.arguments")
            rows.append({
                "tool": call.tool, "arguments": arguments, "resultSummary": call.result_summary,
                "durationMs": call.duration_ms, "at": call.at.isoformat() if call.at else None,
            })  # fmt: skip

        positions = [c.position for c in calls]
        given = [p for p in positions if p is not None]
        if given and len(given) != len(calls):
            missing = positions.index(None)
            raise InvalidInput("give every call its position, or none", field=f"items.{missing}.position")
        for i, position in enumerate(given):
            if position != given[0] + i:
                raise Conflict(
                    f"positions follow one another in the log's order: items.{i}.position is {position}, "
                    f"not {given[0] + i}",
                    field=f"items.{i}.position",
                )

        async def work(gated: Gated) -> dict[str, Any]:
            if principal.scope is not None:
                found = await gated.run("queries/continuity/sessions_by_ids", ids=[session_id])
                if not found or not principal.sees_agent(found[0]["session"]["agentId"]):
                    raise NotFound(f"no session {session_id!r}", field="id")
            fresh = rows
            if given:  # a call at a position the log has is a repeat: the same call, skipped
                state = await gated.run(
                    "queries/continuity/tool_calls_logged", sessionId=session_id, positions=given
                )
                if not state:
                    raise NotFound(f"no session {session_id!r}", field="id")
                logged = int(state[0]["logged"])
                taken = {t["position"]: t["tool"] for t in state[0]["taken"]}
                for i, call in enumerate(calls):
                    if call.position in taken and taken[call.position] != call.tool:
                        raise Conflict(
                            f"position {call.position} of the log holds a call of {taken[call.position]!r}",
                            field=f"items.{i}.position",
                        )
                if given[0] > logged + 1:
                    raise Conflict(
                        f"the log holds {logged} calls; position {given[0]} would leave a gap",
                        field="items.0.position",
                    )
                fresh = rows[logged + 1 - given[0] :] if logged >= given[0] else rows
                if not fresh:
                    return {"sessionId": session_id, "first": given[0], "last": given[-1], "appended": 0}
            added = await gated.run(
                "queries/continuity/tool_calls_append", sessionId=session_id, rows=fresh,
                role=principal.role.value, agentId=principal.agent_id,
            )  # fmt: skip
            if not added:
                raise NotFound(f"no session {session_id!r}", field="id")
            first, last = int(added[0]["first"]), int(added[0]["last"])
            await journal.record(
                gated, principal, op="toolCalls.append", target_type="Session", target_id=session_id,
                before=None, after={"first": first, "last": last,
                                    "tools": sorted({c.tool for c in calls[len(calls) - len(fresh) :]})},
            )  # fmt: skip
            sent = (given[0], given[-1]) if given else (first, last)  # the positions of the calls sent
            return {"sessionId": session_id, "first": sent[0], "last": sent[1], "appended": len(fresh)}

        return await self._gate.write(principal.user_id, work)

    async def replay(
        self, principal: Principal, session_id: str, *, limit: int = 200, cursor: str | None = None
    ) -> tuple[list[dict[str, Any]], str | None]:
        """The session's calls in the order they were recorded (404 for a session that is
        not the caller's)."""
        session_id = check_id(session_id)
        found = await self._db.read(
            "queries/continuity/sessions_by_ids", userId=principal.user_id, ids=[session_id]
        )
        if not found or not principal.sees_agent(found[0]["session"]["agentId"]):
            raise NotFound(f"no session {session_id!r}", field="id")
        rows = await self._db.read(
            "queries/continuity/tool_calls_replay", userId=principal.user_id, sessionId=session_id,
            after=decode_seq_cursor(cursor) if cursor else 0, limit=limit + 1,
        )  # fmt: skip
        items = [_view(r["call"]) for r in rows[:limit]]
        return items, str(items[-1]["position"]) if len(rows) > limit else None


def _stored_json(value: Any, field: str) -> str:
    """``value`` as the JSON text a call keeps (UTF-8), or a 422 naming ``field``, never an
    error of another kind: the API bounds ``arguments`` first (``ctxnet.wire.base.JsonBounds``),
    and this holds for any other caller (a lone surrogate, NaN, a value too deep to encode)."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
        size = len(text.encode())
    except (ValueError, TypeError, RecursionError, UnicodeError) as exc:
        why = "lone surrogate, not UTF-8" if isinstance(exc, UnicodeError) else type(exc).__name__
        raise InvalidInput(f"arguments are not JSON that can be stored ({why})", field=field) from None
    if size > MAX_ARGUMENTS:
        raise InvalidInput(f"arguments are {size} bytes as JSON; at most {MAX_ARGUMENTS}", field=field)
    return text


def _view(row: dict[str, Any]) -> dict[str, Any]:
    call = plain(row)
    call["arguments"] = json.loads(call["arguments"])
    return {k: v for k, v in call.items() if v is not None or k == "arguments"}
