"""Pending actions: what a session left open, surfaced until someone resolves it.

Each is a node of its own, left open by the session that ended with it (``LEFT_OPEN``).
It is acknowledged and cleared with a resolution, or carried forward into a later session,
which it then belongs to (``CARRIES``), counting how often it was carried.
"""

from __future__ import annotations

from typing import Any

from graph.core import journal
from graph.core.db import Database, Row
from graph.core.errors import Conflict, InvalidInput, NotFound
from graph.core.gate import Gated, WriteGate
from graph.core.principals import Principal
from graph.core.values import check_id, decode_cursor, encode_cursor, plain

STATUSES = ("open", "done")


class PendingActionService:
    """The calling user's pending actions."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._gate = WriteGate(db)

    async def list_actions(
        self,
        principal: Principal,
        *,
        status: str | None = "open",
        agent_id: str | None = None,
        limit: int = 200,
        cursor: str | None = None,
    ) -> tuple[list[dict[str, Any]], str | None]:
        """A page of pending actions, oldest first (open ones unless ``status`` says otherwise),
        and the cursor of the next page, if there is one."""
        after: dict[str, Any] = {"afterAt": None, "afterPosition": None, "afterId": None}
        if cursor:
            at, last = decode_cursor(cursor)
            position, _, last_id = last.partition(":")
            if not position.isdigit() or not last_id:
                raise InvalidInput("cursor is not one this API issued", field="cursor")
            after = {"afterAt": at, "afterPosition": int(position), "afterId": last_id}
        rows = await self._db.read(
            "queries/continuity/pending_actions_list",
            userId=principal.user_id,
            ids=None,
            status=status,
            agentId=principal.agent_view(check_id(agent_id, "agentId") if agent_id else None),
            limit=limit + 1,
            **after,
        )
        items = [plain(row["action"]) for row in rows[:limit]]
        if len(rows) <= limit:
            return items, None
        last_row = rows[limit - 1]
        return items, encode_cursor(last_row["at"], f"{last_row['position']}:{last_row['action']['id']}")

    @staticmethod
    async def _one(gated: Gated, action_id: str, principal: Principal) -> dict[str, Any]:
        rows = await gated.run(
            "queries/continuity/pending_actions_list", ids=[action_id], status=None, agentId=None, limit=1,
            afterAt=None, afterPosition=None, afterId=None,
        )  # fmt: skip
        if not rows or not principal.sees_agent(rows[0]["action"]["agentId"]):
            raise NotFound(f"no pending action {action_id!r}")
        action: dict[str, Any] = plain(rows[0]["action"])
        return action

    async def resolve(self, principal: Principal, action_id: str, resolution: str) -> dict[str, Any]:
        """Acknowledge and clear an open action; the same resolution again answers the same,
        another one of a cleared action is a :class:`Conflict`."""
        action_id = check_id(action_id)

        async def work(gated: Gated) -> dict[str, Any]:
            action = await self._one(gated, action_id, principal)
            if action["status"] == "done":
                if action.get("resolution") != resolution:
                    raise Conflict(
                        f"pending action {action_id!r} was already cleared with another resolution"
                    )
                return action
            await gated.run(
                "queries/continuity/pending_action_resolve",
                id=action_id,
                resolution=resolution,
                role=principal.role.value,
                agentId=principal.agent_id,
            )
            await journal.record(
                gated, principal, op="pendingAction.ack", target_type="PendingAction", target_id=action_id,
                before={"status": "open"}, after={"status": "done", "resolution": resolution},
            )  # fmt: skip
            return await self._one(gated, action_id, principal)

        return await self._gate.write(principal.user_id, work)

    async def carry(self, principal: Principal, action_id: str, session_id: str) -> dict[str, Any]:
        """Carry an open action forward into an open session of the user's."""
        action_id = check_id(action_id)
        session_id = check_id(session_id, "sessionId")

        async def work(gated: Gated) -> dict[str, Any]:
            action = await self._one(gated, action_id, principal)
            sessions: list[Row] = await gated.run("queries/continuity/sessions_by_ids", ids=[session_id])
            if not sessions or not principal.sees_agent(sessions[0]["session"]["agentId"]):
                raise NotFound(f"no session {session_id!r}", field="sessionId")
            if action["status"] != "open":
                raise Conflict(f"pending action {action_id!r} is cleared; only open ones are carried")
            if sessions[0]["session"]["status"] != "open":
                raise Conflict(
                    f"session {session_id!r} has ended; carry into an open session", field="sessionId"
                )
            if action["sessionId"] == session_id:
                return action  # already there: carrying again changes nothing
            await gated.run("queries/continuity/pending_action_carry", id=action_id, sessionId=session_id)
            carried = await self._one(gated, action_id, principal)
            await journal.record(
                gated, principal, op="pendingAction.carry", target_type="PendingAction", target_id=action_id,
                before={k: action[k] for k in ("sessionId", "agentId", "carriedCount")},
                after={k: carried[k] for k in ("sessionId", "agentId", "carriedCount")},
            )  # fmt: skip
            return carried

        return await self._gate.write(principal.user_id, work)
