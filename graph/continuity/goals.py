"""The goal stack: what a user and their agents are working towards, across sessions.

A goal is pushed (set) onto the user's stack, optionally under a parent goal, and leaves
it completed or abandoned, with an outcome. The stack is listed active goals first (the
newest on top), then closed ones, most recently closed first, so a fresh session sees what
was in flight without asking. A goal with open subgoals cannot be completed (complete or
abandon them first); abandoning a goal abandons its open subgoals with it. Every change is
journaled (``goal.set``, ``goal.complete``, ``goal.abandon``).

A key with an entity scope reaches only the goals its own agent set: it sees, completes and
abandons those only. Its abandon takes along only the open subgoals that hang from the goal
through its own agent's goals; another key's subgoals stay open. An answer never names a
goal it cannot see: a ``complete`` blocked by them counts them ("2 open subgoals set by
others").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graph.core import journal
from graph.core.db import Database
from graph.core.errors import Conflict, InvalidInput, NotFound
from graph.core.gate import Gated, WriteGate
from graph.core.principals import Principal
from graph.core.values import check_id, decode_cursor, encode_cursor, plain, sortable_id

STATUSES = ("active", "completed", "abandoned")


@dataclass(frozen=True)
class NewGoal:
    """A goal to push onto the stack."""

    title: str
    id: str | None = None
    parent_id: str | None = None


class GoalService:
    """The calling user's goal stack."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._gate = WriteGate(db)

    async def list_goals(
        self, principal: Principal, *, status: str | None = None, limit: int = 50, cursor: str | None = None
    ) -> tuple[list[dict[str, Any]], str | None]:
        """Active goals first (newest on top), then closed ones (most recently closed first)."""
        after: dict[str, Any] = {"afterRank": None, "afterAt": None, "afterId": None}
        if cursor:
            position, last = decode_cursor(cursor)
            rank, _, last_id = last.partition(":")
            if rank not in ("0", "1") or not last_id:
                raise InvalidInput("cursor is not one this API issued", field="cursor")
            after = {"afterRank": int(rank), "afterAt": position, "afterId": last_id}
        rows = await self._db.read(
            "queries/continuity/goals_list", userId=principal.user_id, ids=None, status=status,
            agentId=principal.agent_view(None), limit=limit + 1, **after,
        )  # fmt: skip
        items = [goal_view(r["goal"]) for r in rows[:limit]]
        if len(rows) <= limit:
            return items, None
        last_row = rows[limit - 1]
        return items, encode_cursor(last_row["position"], f"{last_row['rank']}:{last_row['goal']['id']}")

    async def get(self, principal: Principal, goal_id: str) -> dict[str, Any]:
        rows = await self._db.read(
            "queries/continuity/goals_list", userId=principal.user_id, ids=[check_id(goal_id)], status=None,
            agentId=principal.agent_view(None), limit=1, afterRank=None, afterAt=None, afterId=None,
        )  # fmt: skip
        if not rows:
            raise NotFound(f"no goal {goal_id!r}", field="id")
        return goal_view(rows[0]["goal"])

    @staticmethod
    async def _one(gated: Gated, goal_id: str, agent: str | None = None) -> dict[str, Any] | None:
        """A goal by id (only one ``agent`` set, if given: what a scoped key sees)."""
        rows = await gated.run(
            "queries/continuity/goals_list", ids=[goal_id], status=None, agentId=agent, limit=1,
            afterRank=None, afterAt=None, afterId=None,
        )  # fmt: skip
        return goal_view(rows[0]["goal"]) if rows else None

    async def set(self, principal: Principal, goal: NewGoal) -> tuple[dict[str, Any], bool]:
        """Push a goal; ``(goal, created)``. The same id with the same title and parent again
        answers the goal as it is; with another, a :class:`Conflict`."""
        goal_id = check_id(goal.id) if goal.id else sortable_id()
        parent_id = check_id(goal.parent_id, "parentId") if goal.parent_id else None
        if parent_id == goal_id:
            raise Conflict("a goal cannot be its own parent", field="parentId")

        async def work(gated: Gated) -> tuple[dict[str, Any], bool]:
            existing = await self._one(gated, goal_id)
            if existing is not None and not principal.sees_agent(existing["createdBy"]["agentId"]):
                raise Conflict(f"goal id {goal_id!r} is taken; set the goal under another id", field="id")
            if existing is not None:
                if existing["title"] == goal.title and existing.get("parentId") == parent_id:
                    return existing, False
                raise Conflict(f"goal {goal_id!r} exists with another title or parent", field="id")
            if parent_id is not None:
                parent = await self._one(gated, parent_id, principal.agent_view(None))
                if parent is None:
                    raise NotFound(f"no goal {parent_id!r}", field="parentId")
                if parent["status"] != "active":
                    raise Conflict(
                        f"goal {parent_id!r} is {parent['status']}; a subgoal goes under an active goal",
                        field="parentId",
                    )
            await gated.run(
                "queries/continuity/goal_set", id=goal_id, title=goal.title, parentId=parent_id,
                role=principal.role.value, agentId=principal.agent_id, sessionId=principal.session_id,
            )  # fmt: skip
            await journal.record(
                gated, principal, op="goal.set", target_type="Goal", target_id=goal_id, before=None,
                after={"title": goal.title, "parentId": parent_id},
            )  # fmt: skip
            made = await self._one(gated, goal_id)
            assert made is not None  # noqa: S101 - created just now
            return made, True

        return await self._gate.write(principal.user_id, work)

    async def complete(self, principal: Principal, goal_id: str, outcome: str | None) -> dict[str, Any]:
        """Mark an active goal completed (409 while it has open subgoals)."""
        return await self._close(principal, check_id(goal_id), "completed", outcome)

    async def abandon(self, principal: Principal, goal_id: str, reason: str | None) -> dict[str, Any]:
        """Abandon an active goal and its open subgoals."""
        return await self._close(principal, check_id(goal_id), "abandoned", reason)

    async def _close(
        self, principal: Principal, goal_id: str, status: str, outcome: str | None
    ) -> dict[str, Any]:
        async def work(gated: Gated) -> dict[str, Any]:
            goal = await self._one(gated, goal_id, principal.agent_view(None))
            if goal is None:
                raise NotFound(f"no goal {goal_id!r}", field="id")
            if goal["status"] != "active":
                if goal["status"] == status and goal.get("outcome") == outcome:
                    return goal  # the same close again changes nothing
                raise Conflict(f"goal {goal_id!r} is {goal['status']} already", field="id")
            [open_row] = await gated.run(
                "queries/continuity/goal_open_subgoals", id=goal_id, agentId=principal.agent_view(None)
            )
            active: list[dict[str, Any]] = list(open_row["active"])
            if active and status == "completed":
                said = _open_subgoals(active)
                raise Conflict(f"goal {goal_id!r} has {said}; complete or abandon them first", field="id")
            below = [str(sub["id"]) for sub in active if sub["reached"]]
            rows: list[dict[str, Any]] = [{"id": goal_id, "outcome": outcome}] + [
                {"id": sub, "outcome": f"abandoned with {goal_id}"} for sub in below
            ]
            await gated.run(
                "queries/continuity/goal_close", rows=rows, status=status, role=principal.role.value,
                agentId=principal.agent_id,
            )  # fmt: skip
            op = "goal.complete" if status == "completed" else "goal.abandon"
            await journal.record_many(gated, principal, [
                journal.Change(
                    op, "Goal", str(row["id"]), {"status": "active"},
                    {"status": status, "outcome": row["outcome"]},
                )
                for row in reversed(rows)  # the goal asked for last: the write's newest entry
            ])  # fmt: skip
            closed = await self._one(gated, goal_id)
            assert closed is not None  # noqa: S101 - it exists, under the gate
            return closed

        return await self._gate.write(principal.user_id, work)


def _open_subgoals(active: list[dict[str, Any]]) -> str:
    """The open subgoals as a 409 names them: by id those the caller sees, the others by count."""
    seen = [repr(sub["id"]) for sub in active if sub["sees"]]
    hidden = len(active) - len(seen)
    said = [f"open subgoals ({', '.join(seen[:5])}{', ...' if len(seen) > 5 else ''})"] if seen else []
    if hidden:
        said.append(f"{hidden} open subgoal{'s' if hidden != 1 else ''} set by others")
    return " and ".join(said)


def goal_view(row: dict[str, Any]) -> dict[str, Any]:
    """A goal as the API shows it."""
    g = plain(row)
    view = {
        "id": g["id"], "title": g["title"], "status": g["status"], "parentId": g.get("parentId"),
        "createdAt": g["createdAt"], "sessionId": g.get("sessionId"),
        "createdBy": {"role": g.get("createdByRole"), "agentId": g.get("createdByAgent")},
    }  # fmt: skip
    if g.get("closedAt") is not None:
        view |= {
            "closedAt": g["closedAt"], "outcome": g.get("outcome"),
            "closedBy": {"role": g.get("closedByRole"), "agentId": g.get("closedByAgent")},
        }  # fmt: skip
    return view
