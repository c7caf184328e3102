"""Sessions: an agent's work with a user, from start to end, chained in the graph.

A session belongs to one agent and one user. Its agent is a node of that user's
(``(:Agent)-[:RAN]->(:Session)``), and each session follows the agent's previous session
with the user (``PREVIOUS``), so Neo4j Browser shows an agent's history with a user as one
chain. Ending a session records its summary, topics, key decisions and counts, and leaves
its pending actions open as nodes of their own (``LEFT_OPEN``).
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from neo4j import AsyncManagedTransaction

from graph.conversations.threads import require_thread
from graph.core import journal
from graph.core.db import Database, Row, run_rows
from graph.core.errors import Conflict, Forbidden, InvalidInput, NotFound
from graph.core.gate import Gated, WriteGate
from graph.core.principals import Principal, Role
from graph.core.states import state_json
from graph.core.values import check_id, decode_cursor, encode_cursor, plain


@dataclass(frozen=True)
class NewSession:
    """A session to start."""

    id: str | None = None
    agent_id: str | None = None
    topic: str | None = None
    opening_message: str | None = None
    thread_id: str | None = None


@dataclass(frozen=True)
class SessionEnd:
    """How a session ended."""

    summary: str
    topics: Sequence[str] = ()
    key_decisions: Sequence[str] = ()
    pending_actions: Sequence[str] = ()
    message_count: int = 0
    duration_minutes: int | None = None
    #: Filled from the other fields: the request as given, to recognise a repeat.
    fingerprint: str = field(init=False, default="")

    def given(self) -> dict[str, Any]:
        """The end as requested, by its API names (journaled, and fingerprinted)."""
        return {
            "summary": self.summary,
            "topics": list(self.topics),
            "keyDecisions": list(self.key_decisions),
            "pendingActions": list(self.pending_actions),
            "messageCount": self.message_count,
            "durationMinutes": self.duration_minutes,
        }

    def __post_init__(self) -> None:
        # the request's text as written (JSON without escapes): a forget's query finds it
        object.__setattr__(self, "fingerprint", state_json(self.given()))


def pending_action_id(session_id: str, position: int) -> str:
    """A pending action's id: from its session and place in the end's list (a session ends
    once, so it names one action; a session restored from an export gets the same ids)."""
    return hashlib.sha256(f"{session_id}\x1f{position}".encode()).hexdigest()[:32]


def _view(row: Row) -> dict[str, Any]:
    session: dict[str, Any] = plain(row["session"])
    session.pop("endedWith", None)
    # In the order the end listed them (a pattern comprehension has no order of its own).
    session["pendingActions"].sort(key=lambda a: (a["createdAt"], a.get("position") or 0))
    for action in session["pendingActions"]:
        action.pop("position", None)
    return session


class SessionService:
    """The calling user's sessions."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._gate = WriteGate(db)

    async def require_open(self, principal: Principal) -> None:
        """That the session the caller acts in (``X-Session-ID``) is open and its own agent's
        (a key of no agent, a person's: any open session of its user; a scoped one of no
        agent: none), else :class:`InvalidInput` on ``X-Session-ID``; no header, nothing to
        check."""
        if principal.session_id is None:
            return
        agent = principal.agent_id if principal.scope is None else principal.agent_view(None)
        rows = await self._db.read(
            "queries/continuity/session_of_caller", userId=principal.user_id, id=principal.session_id,
            agentId=agent,
        )  # fmt: skip
        if not rows:
            whose = "of this key's agent" if principal.agent_id is not None else "of this user"
            raise InvalidInput(
                f"X-Session-ID must name an open session {whose} (not {principal.session_id!r}): start "
                "one with POST /v1/sessions, and stop sending the header once it has ended",
                field="X-Session-ID",
            )

    async def start(self, principal: Principal, new: NewSession) -> tuple[dict[str, Any], bool]:
        """Start a session; returns it and whether it is new (an existing id with the same
        request returns it unchanged; with another request it is a :class:`Conflict`)."""
        agent_id = new.agent_id or principal.agent_id
        if agent_id is None:
            who = "a person's key" if principal.role == Role.HUMAN else "a key of no agent"
            raise Forbidden(f"{who} names the agent the session is for: agentId", field="agentId")
        agent_id = check_id(agent_id, "agentId")
        if not principal.sees_agent(agent_id):
            raise Forbidden("this key is scoped: it starts sessions of its own agent only", field="agentId")
        session_id = check_id(new.id) if new.id else uuid.uuid4().hex
        if new.thread_id is not None and principal.scope is not None:
            raise Forbidden("this key is scoped: conversations are outside any scope", field="threadId")
        if new.thread_id is not None:
            await require_thread(self._db, principal.user_id, check_id(new.thread_id, "threadId"), "threadId")
        asked = (agent_id, new.topic, new.opening_message, new.thread_id)

        async def work(gated: Gated) -> tuple[Row, bool]:
            existing = await gated.run("queries/continuity/sessions_by_ids", ids=[session_id])
            if existing and not principal.sees_agent(existing[0]["session"]["agentId"]):
                raise Conflict(
                    f"session id {session_id!r} is taken; start the new one under another id", field="id"
                )
            if existing:
                stored = existing[0]["session"]
                if (
                    stored["agentId"],
                    stored["topic"],
                    stored["openingMessage"],
                    stored["threadId"],
                ) != asked:
                    raise Conflict(
                        f"session {session_id!r} already exists with another agent, topic, opening "
                        "message or thread; start the new one under another id",
                        field="id",
                    )
                return existing[0], False
            await gated.run(
                "queries/continuity/session_start",
                id=session_id,
                agentId=agent_id,
                topic=new.topic,
                openingMessage=new.opening_message,
                threadId=new.thread_id,
            )
            [row] = await gated.run("queries/continuity/sessions_by_ids", ids=[session_id])
            after = {"agentId": agent_id, "topic": new.topic, "openingMessage": new.opening_message,
                     "threadId": new.thread_id, "status": "open"}  # fmt: skip
            await journal.record(
                gated, principal, op="session.start", target_type="Session", target_id=session_id,
                before=None, after=after,
            )  # fmt: skip
            return row, True

        row, created = await self._gate.write(principal.user_id, work)
        return _view(row), created

    async def end(
        self, principal: Principal, session_id: str, end: SessionEnd
    ) -> tuple[dict[str, Any], bool]:
        """End an open session; the same end repeated returns it unchanged (``False``), another
        end of an ended session is a :class:`Conflict`."""
        session_id = check_id(session_id)
        if not end.summary.strip():
            raise InvalidInput("summary must not be empty", field="summary")

        async def work(gated: Gated) -> tuple[Row, bool]:
            found = await gated.run("queries/continuity/sessions_by_ids", ids=[session_id])
            if not found or not principal.sees_agent(found[0]["session"]["agentId"]):
                raise NotFound(f"no session {session_id!r}")
            stored = found[0]["session"]
            if stored["status"] == "ended":
                if stored["endedWith"] != end.fingerprint:
                    raise Conflict(
                        f"session {session_id!r} has already ended with another summary; a session ends once"
                    )
                return found[0], False
            pending = [
                {"id": pending_action_id(session_id, i), "text": text, "position": i}
                for i, text in enumerate(end.pending_actions)
            ]
            await gated.run(
                "queries/continuity/session_end",
                id=session_id,
                summary=end.summary.strip(),
                topics=list(end.topics),
                keyDecisions=list(end.key_decisions),
                messageCount=end.message_count,
                durationMinutes=end.duration_minutes,
                endedWith=end.fingerprint,
                pending=pending,
            )
            [row] = await gated.run("queries/continuity/sessions_by_ids", ids=[session_id])
            after = {**end.given(), "status": "ended",
                     "durationMinutes": row["session"]["durationMinutes"]}  # fmt: skip
            await journal.record(
                gated, principal, op="session.end", target_type="Session", target_id=session_id,
                before={"status": "open"}, after=after,
            )  # fmt: skip
            return row, True

        row, ended = await self._gate.write(principal.user_id, work)
        return _view(row), ended

    async def get(self, principal: Principal, session_id: str) -> dict[str, Any]:
        """One of the user's sessions, or :class:`NotFound`."""
        rows = await self._db.read(
            "queries/continuity/sessions_by_ids", userId=principal.user_id, ids=[check_id(session_id)]
        )
        if not rows or not principal.sees_agent(rows[0]["session"]["agentId"]):
            raise NotFound(f"no session {session_id!r}")
        return _view(rows[0])

    async def list_sessions(
        self, principal: Principal, *, agent_id: str | None = None, limit: int = 50, cursor: str | None = None
    ) -> tuple[list[dict[str, Any]], str | None]:
        """A page of the user's sessions (one agent's, if given), newest first."""
        after_time, after_id = decode_cursor(cursor) if cursor else (None, None)
        user = principal.user_id
        agent = principal.agent_view(check_id(agent_id, "agentId") if agent_id else None)

        async def work(tx: AsyncManagedTransaction) -> tuple[list[Row], list[Row]]:
            page = await run_rows(
                tx, "queries/continuity/sessions_list", userId=user, agentId=agent,
                afterTime=after_time, afterId=after_id, limit=limit + 1,
            )  # fmt: skip
            ids = [r["id"] for r in page[:limit]]
            return page, await run_rows(tx, "queries/continuity/sessions_by_ids", userId=user, ids=ids)

        page, rows = await self._db.read_tx(work)
        by_id = {row["session"]["id"]: _view(row) for row in rows}
        items = [by_id[r["id"]] for r in page[:limit] if r["id"] in by_id]
        more = len(page) > limit
        return items, encode_cursor(page[limit - 1]["position"], page[limit - 1]["id"]) if more else None
