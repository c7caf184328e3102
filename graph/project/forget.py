"""Forgetting part of a user's memory (``POST /v1/forget``): what a match reaches, in every
kind, in every field and on every path, and nothing else.

What a match reaches is :mod:`graph.project.forget_plan`'s one decision; this module carries
it out. A run is planned once, under the user's write gate, and carried out in batches of
at most :data:`~ctxnet.wire.forget.BATCH` things, each a transaction of its own through the gate (no
transaction holds the whole user). The first transaction journals the run as one
``memory.forget`` entry that names what goes (ids and kinds, never text). Traces go first
and notes last, so a run cut short leaves a state a second run of the same match finishes:
what is left still matches. A finished run is written to the ledger (outside the database),
so a restore of an older dump forgets it again (:func:`replay`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import uuid
from typing import Any, Protocol

from graph.conversations.gists import ThreadGists
from graph.core import journal
from graph.core.db import Database
from graph.core.errors import Conflict, Forbidden, InvalidInput
from graph.core.gate import Gated, WriteGate
from graph.core.principals import Principal, Role
from graph.core.scopes import require_unscoped
from graph.knowledge.models import EdgeType, rel_type_of
from graph.knowledge.search import TenantSizes
from graph.project.forget_plan import FORGOTTEN, ForgetMatch, ForgetPlan, plan, record

#: Ids of each kind the journal entry names (its counts are exact; the rest are in the answer).
JOURNAL_IDS = 200
#: What the notice a forgotten decision left in a conversation says instead.
NOTICE_GONE = "[CONTEXT UPDATE] A decision announced here was forgotten."
_REL_TYPES = {t.value: rel_type_of(t) for t in EdgeType}

__all__ = ["ForgetLedger", "ForgetMatch", "ForgetPlan", "ForgetService", "replay"]


class ForgetLedger(Protocol):
    """Where a run is recorded outside the database, so that a restore of an older dump
    forgets it again (:func:`replay`)."""

    def forgot(self, user_id: str, record: dict[str, Any]) -> None:
        """Record one finished run: ``record`` is JSON-able, names ids, never text."""


class ForgetService:
    """Dry runs and runs of ``POST /v1/forget``."""

    def __init__(
        self,
        db: Database,
        sizes: TenantSizes,
        ledger: ForgetLedger | None = None,
        gists: ThreadGists | None = None,
    ) -> None:
        self._db = db
        self._gate = WriteGate(db)
        self._sizes = sizes
        self._ledger = ledger
        self._gists = gists

    async def forget(
        self,
        principal: Principal,
        match: ForgetMatch,
        *,
        dry_run: bool = True,
        limit: int,
        confirm: bool = False,
    ) -> dict[str, Any]:
        """What ``match`` reaches (a dry run), or forget it: ``{dryRun, matched, counts,
        sample}`` and, after a run, ``mutationId`` (its journal entry) and ``batches``."""
        require_unscoped(principal, "forgetting (it reaches every part of the memory)")
        if principal.role != Role.HUMAN:
            raise Forbidden("forgetting is a person's action: use a person's key")
        if not match.fields():
            raise InvalidInput("match must name at least one criterion", field="match")
        if dry_run:
            read = functools.partial(self._db.read, userId=principal.user_id)
            return _answer(await plan(read, match, together=True), dry_run=True)
        run_id = uuid.uuid4().hex

        async def first(gated: Gated) -> tuple[ForgetPlan, str | None, list[tuple[str, list[Any]]]]:
            found = await plan(gated.run, match)
            if found.matched > limit and not confirm:
                raise Conflict(
                    f"this match reaches {found.matched} things, more than limit ({limit}): raise limit, "
                    "or send confirm: true",
                    field="limit",
                )
            steps = found.steps()
            if not steps:
                return found, None, []
            mutation_id = await journal.record(
                gated, principal, op="memory.forget", target_type="Forget", target_id=run_id,
                before=None, after=record(found, match, JOURNAL_IDS),
            )  # fmt: skip
            await self._step(gated, principal, found, *steps[0])
            return found, mutation_id, steps[1:]

        try:
            found, mutation_id, rest = await self._gate.write(principal.user_id, first)
            for kind, ids in rest:

                async def work(gated: Gated, kind: str = kind, ids: list[Any] = ids) -> None:
                    await self._step(gated, principal, found, kind, ids)

                await self._gate.write(principal.user_id, work)
        finally:
            self._sizes.forget(principal.user_id)
        if self._ledger is not None and mutation_id is not None:
            self._ledger.forgot(principal.user_id, {"steps": ledger_steps(found)})
        answer = _answer(found, dry_run=False)
        if mutation_id is not None:
            answer |= {"mutationId": mutation_id, "batches": len(rest) + 1}
        return answer

    async def _step(
        self, gated: Gated, principal: Principal, found: ForgetPlan, kind: str, ids: list[Any]
    ) -> None:
        threads = await _step(gated, principal, [n["id"] for n in found.notes], kind, ids)
        if self._gists is not None:
            for thread_id in threads:  # marked now; made again once this transaction is in
                self._gists.mark(principal.user_id, thread_id)


async def _step(
    gated: Gated, principal: Principal, forgetting: list[str], kind: str, ids: list[Any]
) -> list[str]:
    """Forget one batch of one kind, in ``gated``'s transaction; the threads whose gist must
    be made again."""
    if kind in _TRACES:
        await gated.run("queries/project/forget_traces", **(_NO_TRACES | {_TRACES[kind]: ids}))
    elif kind == "change":
        [row] = await gated.run(
            "queries/project/forget_change",
            items=ids,
            forgotten=FORGOTTEN,
            forgottenData=json.dumps(FORGOTTEN),
            relTypes=_REL_TYPES,
        )
        return list(row["threads"])
    elif kind == "insight":
        await gated.run("queries/project/forget_insights", ids=ids)
    elif kind in ("wikiPage", "wikiPageSession"):
        by_session = kind == "wikiPageSession"
        await gated.run(
            "queries/project/forget_pages",
            ids=[] if by_session else ids,
            sessionIds=ids if by_session else [],
        )
    elif kind == "thread":
        await gated.run("queries/project/forget_threads", ids=ids)
    elif kind == "note":
        await _notes(gated, principal, forgetting, ids)
    else:  # the other records (forget_plan.RECORDS)
        await gated.run("queries/project/forget_records", kind=kind, ids=ids)
    return []


async def _notes(gated: Gated, principal: Principal, forgetting: list[str], ids: list[str]) -> None:
    [row] = await gated.run(
        "queries/project/forget_notes", ids=ids, forgetting=forgetting, noticeGone=NOTICE_GONE
    )
    # A note only a forgotten note superseded is active again, as after a delete; that
    # change of a note that stays is journaled as a delete's is.
    await journal.record_many(gated, principal, [
        journal.Change("note.status", "Knowledge", node_id, _WAS, _NOW)
        for node_id in sorted(row["restored"])
    ])  # fmt: skip


_TRACES = {"journalEntry": "mutationIds", "correction": "correctionIds", "proposal": "proposalIds"}
_NO_TRACES: dict[str, list[Any]] = {"mutationIds": [], "correctionIds": [], "proposalIds": []}
_WAS, _NOW = {"status": "superseded"}, {"status": "active"}


def ledger_steps(found: ForgetPlan) -> list[list[Any]]:
    """The run's steps as the ledger keeps them, without text: a change names its fields,
    not the list items it removed (a replay empties those lists); a wiki page goes by its
    session's id (a slug is made of its words), a preference by a hash of its name."""
    slugs = {p["id"]: p["sessionId"] for p in found.pages}
    steps: list[list[Any]] = []
    for kind, ids in found.steps():
        if kind == "change":
            steps.append([kind, [c | {"remove": None} for c in ids]])
        elif kind == "wikiPage":
            steps.append(["wikiPageSession", [slugs[slug] for slug in ids]])
        elif kind == "preference":
            steps.append(["preferenceHash", [_hash(name) for name in ids]])
        else:
            steps.append([kind, ids])
    return steps


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


async def replay(db: Database, user_id: str, recorded: dict[str, Any]) -> None:
    """Carry out a recorded run again (``ctxnet db restore`` of a dump older than it): every
    step by the keys it names, each a transaction through the gate; what is gone already is
    skipped, so a replay of a replay changes nothing."""
    principal = Principal(user_id=user_id, role=Role.HUMAN, agent_id=None, key_id="ledger")
    gate = WriteGate(db)
    for kind, keys in recorded.get("steps", []):
        if kind == "preferenceHash":
            names = [
                r["name"] for r in await db.read("queries/project/forget_preference_names", userId=user_id)
            ]
            kind, keys = "preference", [n for n in names if _hash(n) in set(keys)]

        async def work(gated: Gated, kind: str = kind, keys: list[Any] = keys) -> None:
            await _step(gated, principal, [], kind, list(keys))

        await gate.write(user_id, work)


def _answer(found: ForgetPlan, *, dry_run: bool) -> dict[str, Any]:
    return {"dryRun": dry_run, "matched": found.matched, "counts": found.counts(), "sample": found.sample()}
