"""Forgetting part of a user's memory (``POST /v1/forget``): what a match reaches, in every
kind and on every path, and nothing else.

A match reaches notes (with their merge records, edges, vectors and fulltext entries),
insights (matched directly, drawn by a forgotten note, of a forgotten thread or page),
threads named by id (with their messages) and wiki pages; and with them their traces: the
journal's entries of each keep their place and sequence but lose their values (scrubbed),
corrections and proposals about them go. ``docs/forgetting.md`` lists it kind by kind.

A run is planned once, under the user's write gate, and carried out in batches of at most
:data:`BATCH` things, each a transaction of its own through the gate (no transaction holds
the whole user). The first transaction journals the run as one ``memory.forget`` entry that
names what goes (ids and kinds, never text). Traces go first and notes last, so a run cut
short leaves a state a second run of the same match finishes: what is left still matches.
"""

from __future__ import annotations

import asyncio
import functools
import json
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from graph.core import journal
from graph.core.db import Database, Row, listed
from graph.core.errors import Conflict, Forbidden, InvalidInput
from graph.core.gate import Gated, WriteGate
from graph.core.principals import Principal, Role
from graph.core.scopes import require_unscoped
from graph.knowledge.search import TenantSizes

#: Most things one transaction forgets (notes, insights, threads, pages, traces).
BATCH = 1_000
#: Things the dry run's sample shows.
SAMPLE = 20
#: Ids of each kind the journal entry names (its counts are exact; the rest are in the answer).
JOURNAL_IDS = 200
#: What the notice a forgotten decision left in a conversation says instead.
NOTICE_GONE = "[CONTEXT UPDATE] A decision announced here was forgotten."
#: The kinds an answer counts, in the order a run forgets them.
KINDS = (
    "journalEntries", "corrections", "proposals", "insights", "wikiPages", "threads", "messages",
    "notes", "merges",
)  # fmt: skip

Run = Callable[..., Awaitable[list[Row]]]
_CRITERIA = ("ids", "tags", "query", "source", "before", "after")


@dataclass(frozen=True)
class ForgetMatch:
    """What to forget: every criterion given must hold (``docs/forgetting.md`` says which
    kinds each reaches)."""

    ids: tuple[str, ...] | None = None
    tags: tuple[str, ...] | None = None
    query: str | None = None
    source: str | None = None
    before: datetime | None = None
    after: datetime | None = None

    def fields(self) -> list[str]:
        """The criteria given, by name (what the journal keeps of the match: no values)."""
        return [
            k for k in ("ids", "tags", "query", "source", "before", "after") if getattr(self, k) is not None
        ]

    def params(self) -> dict[str, Any]:
        """The match as the statements' parameters (the query lower-cased, and as JSON text
        writes it, for the journal's states)."""
        query = self.query.lower() if self.query is not None else None
        return {
            "ids": list(self.ids) if self.ids is not None else None,
            "tags": list(self.tags) if self.tags is not None else None,
            "query": query,
            "jsonQuery": json.dumps(query)[1:-1] if query is not None else None,
            "source": self.source,
            "before": self.before,
            "after": self.after,
        }


@dataclass
class ForgetPlan:
    """Everything one run forgets, by kind, as read when it began."""

    notes: list[dict[str, Any]] = field(default_factory=list)
    insights: list[dict[str, Any]] = field(default_factory=list)
    threads: list[dict[str, Any]] = field(default_factory=list)
    pages: list[dict[str, Any]] = field(default_factory=list)
    traces: dict[str, list[str]] = field(default_factory=dict)
    #: The journal entries no thing of the run takes with it (of things deleted before, or
    #: holding the query's text, or an edge's): scrubbed on their own.
    loose: list[str] = field(default_factory=list)

    @property
    def matched(self) -> int:
        """Things the run forgets (notes, insights, threads, wiki pages): what ``limit`` bounds."""
        return len(self.notes) + len(self.insights) + len(self.threads) + len(self.pages)

    def counts(self) -> dict[str, int]:
        """How many of each kind go (journal entries: are scrubbed)."""
        return {
            "notes": len(self.notes),
            "merges": sum(int(n["merges"]) for n in self.notes),
            "insights": len(self.insights),
            "threads": len(self.threads),
            "messages": sum(len(t["messages"]) for t in self.threads),
            "wikiPages": len(self.pages),
            "corrections": len(self.traces.get("correction", [])),
            "proposals": len(self.traces.get("proposal", [])),
            "journalEntries": len(self.traces.get("journalEntry", [])),
        }

    def sample(self) -> list[dict[str, Any]]:
        """A few of the things that go: kind, id, and a title where the kind has one."""
        things = [
            *({"kind": "note", "id": n["id"], "title": n["title"]} for n in self.notes[:SAMPLE]),
            *({"kind": "insight", "id": i["id"], "title": None} for i in self.insights[:SAMPLE]),
            *({"kind": "thread", "id": t["id"], "title": t["title"]} for t in self.threads[:SAMPLE]),
            *({"kind": "wikiPage", "id": p["id"], "title": p["title"]} for p in self.pages[:SAMPLE]),
        ]
        return things[:SAMPLE]

    def record(self, match: ForgetMatch) -> dict[str, Any]:
        """What the journal keeps of the run: the criteria's names, the counts, the ids."""
        ids = {
            "notes": [n["id"] for n in self.notes],
            "insights": [i["id"] for i in self.insights],
            "threads": [t["id"] for t in self.threads],
            "wikiPages": [p["sessionId"] for p in self.pages],  # a slug is made of the page's words
        }
        return {
            "match": match.fields(),
            "counts": self.counts(),
            "ids": {k: v[:JOURNAL_IDS] for k, v in ids.items() if v},
            "idsCut": any(len(v) > JOURNAL_IDS for v in ids.values()),
        }

    def steps(self) -> list[tuple[str, list[str]]]:
        """The run as batches of at most :data:`BATCH` things, in the order they go: traces,
        then insights (found through the notes they were drawn into), pages, threads, notes."""
        queue: list[tuple[str, list[str]]] = [
            ("journalEntry", self.loose),
            ("correction", self.traces.get("correction", [])),
            ("proposal", self.traces.get("proposal", [])),
            ("insight", [i["id"] for i in self.insights]),
            ("wikiPage", [p["id"] for p in self.pages]),
        ]
        steps = [(kind, ids[i : i + BATCH]) for kind, ids in queue for i in range(0, len(ids), BATCH)]
        chunk: list[str] = []
        size = 0
        for thread in self.threads:  # a thread goes with its messages: count them
            if chunk and size + 1 + len(thread["messages"]) > BATCH:
                steps.append(("thread", chunk))
                chunk, size = [], 0
            chunk.append(thread["id"])
            size += 1 + len(thread["messages"])
        if chunk:
            steps.append(("thread", chunk))
        notes = [n["id"] for n in self.notes]
        steps += [("note", notes[i : i + BATCH]) for i in range(0, len(notes), BATCH)]
        return steps


async def plan(run: Run, match: ForgetMatch, *, together: bool = False) -> ForgetPlan:
    """What ``match`` reaches now, read through ``run`` (a read, or under the write gate).
    ``together``: ``run`` opens a transaction per call (a dry run's reads), so the journal's
    text is searched while the notes are (the two reads of every note and entry a query
    takes), not after."""
    p = match.params()
    text: asyncio.Future[list[dict[str, Any]]] | None = None
    if together and p["jsonQuery"] is not None:
        text = asyncio.ensure_future(
            _listed(
                run, "queries/project/forget_match_journal_text", jsonQuery=p["jsonQuery"], query=p["query"]
            )
        )
    try:
        return await _plan(run, match, p, text)
    finally:
        if text is not None and not text.done():
            text.cancel()


async def _plan(
    run: Run, match: ForgetMatch, p: dict[str, Any], text: asyncio.Future[list[dict[str, Any]]] | None
) -> ForgetPlan:
    only_ids = match.fields() == ["ids"]
    direct = match.tags is None and match.source is None  # insights and pages have neither
    result = ForgetPlan()
    notes = "queries/project/forget_match_notes"
    if match.ids is not None:  # named ids: seeks through the key, not a read of every note
        notes = "queries/project/forget_match_notes_by_id"
    result.notes = await _listed(run, notes, **_subset(p, _NOTE))
    if only_ids:
        result.threads = [dict(r) for r in await run("queries/project/forget_match_threads", ids=p["ids"])]
    if direct:
        result.pages = [dict(r) for r in await run("queries/project/forget_match_pages", **_subset(p, _PAGE))]
    result.insights = await _listed(
        run, "queries/project/forget_match_insights", direct=direct, **_subset(p, _INSIGHT),
        noteIds=[n["id"] for n in result.notes], threadIds=[t["id"] for t in result.threads],
        pageSlugs=[w["id"] for w in result.pages],
    )  # fmt: skip
    targets = {
        *(n["id"] for n in result.notes), *(i["id"] for i in result.insights),
        *(t["id"] for t in result.threads), *(m for t in result.threads for m in t["messages"]),
        *(w["id"] for w in result.pages), *(match.ids or ()),
    }  # fmt: skip
    rows = await _listed(
        run,
        "queries/project/forget_match_traces",
        targets=sorted(targets),
        query=p["query"],
        jsonQuery=p["jsonQuery"],
    )
    if text is not None:
        rows += await text
    elif p["jsonQuery"] is not None:
        rows += await _listed(
            run, "queries/project/forget_match_journal_text", jsonQuery=p["jsonQuery"], query=p["query"]
        )
    live = targets - set(match.ids or ())
    journal: set[str] = set()
    for row in rows:
        if row["kind"] == "journalEntry" and row["id"] in journal:
            continue  # found both by its target and by its text
        result.traces.setdefault(str(row["kind"]), []).append(str(row["id"]))
        if row["kind"] == "journalEntry":
            journal.add(row["id"])
            if row["targetId"] not in live:  # the others go with their thing
                result.loose.append(str(row["id"]))
    return result


_NOTE = ("ids", "tags", "query", "source", "before", "after")
_INSIGHT = ("ids", "query", "before", "after")
_PAGE = ("ids", "query", "before", "after")


async def _listed(run: Run, name: str, /, **params: Any) -> list[dict[str, Any]]:
    """The rows of a plan query that answers them as one list (:func:`listed`): thousands of
    rows come through the driver several times faster so (a dry run by tag over 100,000 notes
    read 10,000 notes and 10,000 journal entries in 2.1 s as rows, 0.5 s as lists)."""
    return listed(await run(name, **params))


def _subset(params: dict[str, Any], names: Sequence[str]) -> dict[str, Any]:
    return {k: params[k] for k in names}


class ForgetLedger(Protocol):
    """Where a run is recorded outside the database, so that a restore of an older dump
    forgets it again (:func:`replay`)."""

    def forgot(self, user_id: str, record: dict[str, Any]) -> None:
        """Record one finished run: ``record`` is JSON-able, names ids, never text."""


class ForgetService:
    """Dry runs and runs of ``POST /v1/forget``."""

    def __init__(self, db: Database, sizes: TenantSizes, ledger: ForgetLedger | None = None) -> None:
        self._db = db
        self._gate = WriteGate(db)
        self._sizes = sizes
        self._ledger = ledger

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
            found = await plan(read, match, together=True)
            return _answer(found, dry_run=True)
        run_id = uuid.uuid4().hex

        async def first(gated: Gated) -> tuple[ForgetPlan, str | None, list[tuple[str, list[str]]]]:
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
                before=None, after=found.record(match),
            )  # fmt: skip
            await _step(gated, principal, found, *steps[0])
            return found, mutation_id, steps[1:]

        try:
            found, mutation_id, rest = await self._gate.write(principal.user_id, first)
            for kind, ids in rest:

                async def work(gated: Gated, kind: str = kind, ids: list[str] = ids) -> None:
                    await _step(gated, principal, found, kind, ids)

                await self._gate.write(principal.user_id, work)
        finally:
            self._sizes.forget(principal.user_id)
        if self._ledger is not None and mutation_id is not None:
            self._ledger.forgot(principal.user_id, {"steps": [[kind, ids] for kind, ids in found.steps()]})
        answer = _answer(found, dry_run=False)
        if mutation_id is not None:
            answer |= {"mutationId": mutation_id, "batches": len(rest) + 1}
        return answer


async def _step(gated: Gated, principal: Principal, found: ForgetPlan, kind: str, ids: list[str]) -> None:
    """Forget one batch of one kind, in ``gated``'s transaction."""
    if kind == "journalEntry":
        await gated.run("queries/project/forget_traces", mutationIds=ids, correctionIds=[], proposalIds=[])
    elif kind == "correction":
        await gated.run("queries/project/forget_traces", mutationIds=[], correctionIds=ids, proposalIds=[])
    elif kind == "proposal":
        await gated.run("queries/project/forget_traces", mutationIds=[], correctionIds=[], proposalIds=ids)
    elif kind == "insight":
        await gated.run("queries/project/forget_insights", ids=ids)
    elif kind == "wikiPage":
        await gated.run("queries/project/forget_pages", ids=ids)
    elif kind == "thread":
        await gated.run("queries/project/forget_threads", ids=ids)
    else:
        [row] = await gated.run(
            "queries/project/forget_notes",
            ids=ids,
            forgetting=[n["id"] for n in found.notes],
            noticeGone=NOTICE_GONE,
        )
        # A note only a forgotten note superseded is active again, as after a delete; that
        # change of a note that stays is journaled as a delete's is.
        await journal.record_many(gated, principal, [
            journal.Change("note.status", "Knowledge", node_id, _WAS, _NOW)
            for node_id in sorted(row["restored"])
        ])  # fmt: skip


_WAS, _NOW = {"status": "superseded"}, {"status": "active"}


async def replay(db: Database, user_id: str, record: dict[str, Any]) -> None:
    """Carry out a recorded run again (``ctxnet db restore`` of a dump older than it): every
    step by the ids it names, each a transaction through the gate; what is gone already is
    skipped, so a replay of a replay changes nothing."""
    principal = Principal(user_id=user_id, role=Role.HUMAN, agent_id=None, key_id="ledger")
    found = ForgetPlan()
    gate = WriteGate(db)
    for kind, ids in record.get("steps", []):

        async def work(gated: Gated, kind: str = kind, ids: list[str] = ids) -> None:
            await _step(gated, principal, found, kind, list(ids))

        await gate.write(user_id, work)


def _answer(found: ForgetPlan, *, dry_run: bool) -> dict[str, Any]:
    return {"dryRun": dry_run, "matched": found.matched, "counts": found.counts(), "sample": found.sample()}
