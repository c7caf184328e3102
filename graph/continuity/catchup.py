"""catch_up: what changed in the user's memory since the caller was last here.

Six sections, each a count and its top items: sessions (started or ended), mutations (the
journal), knowledge (new and updated notes), work (goals set or closed, pending actions
opened or resolved), wiki (saved session pages) and approvals (proposals waiting for a
person). One read query (``queries/continuity/catch_up``).

The cutoff resolves in tiers, and the answer names the one used: an explicit ``since``;
else this agent's newest saved session page (``session_record``); else the caller's last
catch_up (``last_access``); else 24 hours ago (``default_24h``). Times are the service's
recording clock (``cutoffClock: recorded``): when each change was written.

It writes nothing, but for recording this call as the caller's last access, at most once a
minute. orient and brief_me do not record one: a catch_up right after orient still reaches
back to the last session.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from graph.core.db import Database
from graph.core.principals import Principal, Scope
from graph.core.values import iso_millis, plain

SECTIONS = ("sessions", "mutations", "knowledge", "work", "wiki", "approvals")


class CatchUpService:
    """Answers catch_up for the calling principal."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def catch_up(
        self,
        principal: Principal,
        *,
        since: datetime | None = None,
        entity_scope: Scope | None = None,
        limit_per_section: int = 5,
    ) -> dict[str, Any]:
        """The changes since the resolved cutoff, by section."""
        [row] = await self._db.read(
            "queries/continuity/catch_up",
            userId=principal.user_id,
            agentId=principal.agent_id,
            viewAgent=principal.agent_view(None),
            actor=principal.actor,
            sessionId=principal.session_id,
            since=since.isoformat() if since is not None else None,
            scope=Scope.of(principal.scope),
            focus=Scope.of(entity_scope),
            limit=limit_per_section,
        )
        if row["accessStale"]:
            await self._db.write(
                "queries/continuity/access_touch", userId=principal.user_id, actor=principal.actor
            )
        answer: dict[str, Any] = {
            "cutoff": iso_millis(row["cutoff"]),
            "cutoffTier": row["tier"],
            "cutoffClock": "recorded",
            "myLastSession": plain(row["myLastSession"]),
        }
        for section in SECTIONS:
            answer[section] = plain(row[section])
        answer["isEmpty"] = all(answer[s]["count"] == 0 for s in SECTIONS)
        return answer
