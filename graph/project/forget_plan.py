"""What a forget reaches: one plan over every kind and every field (``docs/forgetting.md``).

The plan is decided here once, and nothing else decides it: every criterion applies to
everything it touches, and what a ``query`` holds is decided by :mod:`graph.core.folding`.

* **Things that go** when they hold the text or the other criteria name them: notes (every
  field a user writes, and their merged twins'), insights, wiki pages, goals, skills, tool
  calls, pending actions, preferences and agent doc lines; threads named by ``ids`` alone go
  whole.
* **Things that stay, changed**: a message, a thread's topic, a session's text, an edge's
  note or source, the profile's background, an agent's base instructions lose the text
  (:data:`FORGOTTEN` in its place; a list loses the items that hold it).
* **Traces**: the journal entries (scrubbed), corrections and proposals of what goes; of
  what is changed, those that hold the text; and those that hold the text on their own
  (their thing deleted before, or changed since) when their own time is within
  ``before``/``after`` and the match names no tags or source: never one whose thing stays
  and still holds the text, so no live text has its history taken.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ctxnet.wire.forget import BATCH, SAMPLE
from graph.core.db import Row, listed
from graph.core.folding import (
    LOW_PATTERN,
    PAYLOAD,
    RARE_PATTERN,
    fold,
    holds,
    json_holds,
    json_probe,
    payload_holds,
    state_payload_holds,
)
from graph.knowledge.models import EdgeType, rel_type_of

#: What a changed thing holds where the forgotten text was.
FORGOTTEN = "[forgotten]"

Run = Callable[..., Awaitable[list[Row]]]

#: The fields a user writes, by kind: what a ``query`` is matched against (a test writes
#: through every route and fails on a stored string field that is in no list here).
FIELDS: dict[str, list[str]] = {
    "note": [
        "title",
        "content",
        "tags",
        "source",
        "sourceRef",
        "context",
        "consequences",
        "invalidReason",
        "data",
    ],
    "insight": ["content"],
    "wikiPage": ["title", "summary", "decisions", "learnings", "openQuestions", "savedWith"],
    "goal": ["title", "outcome"],
    "skill": ["name", "bodyMd", "bundle", "trigger", "tags"],
    "toolCall": ["tool", "arguments", "resultSummary"],
    "pendingAction": ["text", "resolution"],
    "preference": ["name", "value"],
    "agentDoc": ["text"],
    "message": ["content", "data"],
    "thread": ["topic"],
    "session": ["topic", "openingMessage", "summary", "topics", "keyDecisions", "endedWith"],
    "profile": ["background"],
    "agent": ["baseInstructions"],
    "edge": ["note", "source"],
}
#: Kinds that go when they hold the text, beside notes, insights and pages (planned apart:
#: criteria of their own); and kinds that stay, changed.
RECORDS = ("goal", "skill", "toolCall", "pendingAction", "preference", "agentDoc")
CHANGED = ("message", "thread", "session", "profile", "agent", "edge")
_EDGE_NAMES = {rel_type_of(t): t.value for t in EdgeType}


@dataclass(frozen=True)
class ForgetMatch:
    """What to forget: every criterion given must hold."""

    ids: tuple[str, ...] | None = None
    tags: tuple[str, ...] | None = None
    query: str | None = None
    source: str | None = None
    before: datetime | None = None
    after: datetime | None = None

    def fields(self) -> list[str]:
        """The criteria given, by name (what the journal keeps of the match: no values)."""
        names = ("ids", "tags", "query", "source", "before", "after")
        return [k for k in names if getattr(self, k) is not None]

    @property
    def folded(self) -> str | None:
        """The query in its caseless form (:func:`graph.core.folding.fold`)."""
        return fold(self.query) if self.query is not None else None

    @property
    def notes_only(self) -> bool:
        """Tags and source are notes' fields: a match naming either reaches notes only."""
        return self.tags is not None or self.source is not None

    def in_window(self, at: Any) -> bool:
        """Whether a thing of time ``at`` is within ``before``/``after`` (one without a time
        is only when neither is given)."""
        if self.before is None and self.after is None:
            return True
        if at is None:
            return False
        moment = at.to_native() if hasattr(at, "to_native") else at
        return (self.before is None or moment < self.before) and (self.after is None or moment >= self.after)


@dataclass
class ForgetPlan:
    """Everything one run forgets or changes, by kind, as read when it began."""

    notes: list[dict[str, Any]] = field(default_factory=list)
    insights: list[dict[str, Any]] = field(default_factory=list)
    threads: list[dict[str, Any]] = field(default_factory=list)
    pages: list[dict[str, Any]] = field(default_factory=list)
    #: Other things that go, by kind (:data:`RECORDS`): their keys.
    records: dict[str, list[str]] = field(default_factory=dict)
    #: Things that stay, changed: ``{kind, id, fields, remove}`` (``remove``: the items of a
    #: list field that go; the other fields get :data:`FORGOTTEN`).
    changes: list[dict[str, Any]] = field(default_factory=list)
    traces: dict[str, list[str]] = field(default_factory=dict)
    #: The journal entries no thing of the run takes with it: scrubbed on their own.
    loose: list[str] = field(default_factory=list)

    @property
    def matched(self) -> int:
        """Everything that goes or changes, traces included: what ``limit`` bounds."""
        return sum(self.counts().values())

    def counts(self) -> dict[str, int]:
        """How many of each kind go or change (journal entries: are scrubbed)."""
        changed = {kind: 0 for kind in CHANGED}
        for change in self.changes:
            changed[change["kind"]] += 1
        return {
            "notes": len(self.notes),
            "merges": sum(int(n["merges"]) for n in self.notes),
            "insights": len(self.insights),
            "threads": len(self.threads),
            "messages": sum(len(t["messages"]) for t in self.threads),
            "wikiPages": len(self.pages),
            **{f"{kind}s": len(self.records.get(kind, [])) for kind in RECORDS},
            **{f"changed{kind[0].upper()}{kind[1:]}s": n for kind, n in changed.items()},
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
            *(
                {"kind": kind, "id": key, "title": None}
                for kind in RECORDS
                for key in self.records.get(kind, [])
            ),
            *({"kind": c["kind"], "id": c["id"], "title": None} for c in self.changes[:SAMPLE]),
        ]
        return things[:SAMPLE]

    def steps(self) -> list[tuple[str, list[Any]]]:
        """The run as batches of at most :data:`BATCH` things, in the order they go: traces,
        changes, insights, pages, the other records, threads, notes last (a run cut short
        leaves what is left still matching)."""
        queue: list[tuple[str, list[Any]]] = [
            ("journalEntry", self.loose),
            ("correction", self.traces.get("correction", [])),
            ("proposal", self.traces.get("proposal", [])),
            ("change", self.changes),
            ("insight", [i["id"] for i in self.insights]),
            ("wikiPage", [p["id"] for p in self.pages]),
            *((kind, self.records.get(kind, [])) for kind in RECORDS),
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

    def going(self) -> set[str]:
        """The keys of everything that goes (what its traces are about)."""
        return {
            *(n["id"] for n in self.notes), *(i["id"] for i in self.insights),
            *(t["id"] for t in self.threads), *(m for t in self.threads for m in t["messages"]),
            *(w["id"] for w in self.pages), *(k for keys in self.records.values() for k in keys),
        }  # fmt: skip


async def plan(run: Run, match: ForgetMatch, *, together: bool = False) -> ForgetPlan:
    """What ``match`` reaches now, read through ``run`` (a read, or under the write gate).
    ``together``: ``run`` opens a transaction per call (a dry run's reads), so the live text
    and the traces' text are read side by side."""
    query = match.folded
    text: list[dict[str, Any]] = []
    trace_text: list[dict[str, Any]] = []
    if query is not None:
        reads = [
            _listed(run, "queries/project/forget_match_text", **_text_params(query)),
            _listed(run, "queries/project/forget_match_trace_text", **_text_params(query)),
        ]
        if together:
            text, trace_text = await asyncio.gather(*reads)
        else:
            text, trace_text = await reads[0], await reads[1]
        text = [r for r in text if any(field_holds(name, value, query) for name, value in r["values"])]
    result = ForgetPlan()
    holders = {(r["kind"], r["id"]) for r in text}
    named: list[dict[str, Any]] = []
    if match.ids is not None:
        named = await _listed(run, "queries/project/forget_match_named", ids=list(match.ids))
    await _things(run, match, result, {key for kind, key in holders if kind == "note"}, text)
    _records_and_changes(match, result, text, named, holders)
    going = result.going()
    # A named id's traces are the run's when its thing is gone (deleted before); with a
    # query, only those that hold it (below).
    gone = set(match.ids or ()) - {r["id"] for r in named} if query is None else set()
    rows = await _listed(run, "queries/project/forget_match_traces", targets=sorted(going | gone))
    _traces(match, result, rows, trace_text, going, {key for _, key in holders}, query)
    proposals = result.traces.get("proposal", [])
    if proposals:  # a proposal's own journal entry (proposal.create) goes with it
        rows = await _listed(run, "queries/project/forget_match_traces", targets=proposals)
        _traces(match, result, [r for r in rows if r["kind"] == "journalEntry"], [], going, set(), None)
    return result


def _text_params(query: str) -> dict[str, Any]:
    return {
        "query": query, "jsonProbe": json_probe(query), "rare": RARE_PATTERN, "low": LOW_PATTERN,
        "fields": FIELDS, "edgeNames": _EDGE_NAMES,
    }  # fmt: skip


async def _things(
    run: Run, match: ForgetMatch, result: ForgetPlan, note_hits: set[str], text: list[dict[str, Any]]
) -> None:
    """Notes, insights, threads and pages: by ``ids`` through their keys, by the other
    criteria in their statements; with a query, only those that hold it."""
    ids = set(match.ids) if match.ids is not None else None
    if match.query is not None:
        ids = note_hits if ids is None else ids & note_hits
    params = {
        "ids": sorted(ids) if ids is not None else None, "tags": _list(match.tags), "source": match.source,
        "before": match.before, "after": match.after,
    }  # fmt: skip
    name = "queries/project/forget_match_notes"
    if ids is not None:  # named, or holding the query: seeks through the key
        name = "queries/project/forget_match_notes_by_id"
    result.notes = await _listed(run, name, **params)
    if match.fields() == ["ids"]:
        result.threads = [
            dict(r) for r in await run("queries/project/forget_match_threads", ids=params["ids"])
        ]
    if not match.notes_only:
        pages, insights = _hits(text, "wikiPage"), _hits(text, "insight")
        page_ids = _narrow(match, pages)
        result.pages = [
            dict(r) for r in await run("queries/project/forget_match_pages", ids=page_ids, **_window(match))
        ]
        direct_ids = _narrow(match, insights)
    else:
        direct_ids = []
    # Whole units only for a match by ids alone: the insights of a named thread or page, and
    # those a named note was drawn from; otherwise every criterion holds for each insight.
    whole = match.fields() == ["ids"]
    result.insights = await _listed(
        run, "queries/project/forget_match_insights", direct=not match.notes_only, ids=direct_ids,
        **_window(match), noteIds=[n["id"] for n in result.notes] if whole else [],
        threadIds=[t["id"] for t in result.threads],
        pageSlugs=[w["id"] for w in result.pages] if whole else [],
    )  # fmt: skip


def _records_and_changes(
    match: ForgetMatch,
    result: ForgetPlan,
    text: list[dict[str, Any]],
    named: list[dict[str, Any]],
    holders: set[tuple[str, str]],
) -> None:
    """The other things a match reaches: records that go (goals, skills and pending actions
    also by id), things that change (by query alone). Neither has tags or a source."""
    if match.notes_only:
        return
    if match.ids is not None:
        for row in named:
            holds_it = match.query is None or (row["kind"], row["id"]) in holders
            if row["kind"] in RECORDS and holds_it and match.in_window(row["at"]):
                result.records.setdefault(row["kind"], []).append(row["id"])
        return
    if match.query is None:
        return
    query = match.folded or ""
    for row in text:
        if not match.in_window(row["at"]):
            continue
        if row["kind"] in RECORDS:
            result.records.setdefault(row["kind"], []).append(row["id"])
        elif row["kind"] in CHANGED:
            held = [(name, value) for name, value in row["values"] if field_holds(name, value, query)]
            remove = [v for _, value in held if isinstance(value, list) for v in value if holds(v, query)]
            fields = [name for name, _ in held]
            result.changes.append({"kind": row["kind"], "id": row["id"], "fields": fields, "remove": remove})


def _traces(
    match: ForgetMatch,
    result: ForgetPlan,
    rows: list[dict[str, Any]],
    trace_text: list[dict[str, Any]],
    going: set[str],
    holders: set[str],
    query: str | None,
) -> None:
    """The traces of what goes (``rows``), of what changes and those on their own that hold
    the query (``trace_text``, decided here)."""
    changed = {c["id"] for c in result.changes}
    named = set(match.ids or ())
    seen: set[tuple[str, str]] = set()

    def take(kind: str, key: str, target: str | None) -> None:
        if (kind, key) in seen:
            return
        seen.add((kind, key))
        result.traces.setdefault(kind, []).append(key)
        if kind == "journalEntry" and target not in going:
            result.loose.append(key)

    for row in rows:
        take(str(row["kind"]), str(row["id"]), row["targetId"])
    for row in trace_text:
        if query is None or not _trace_holds(row, query):
            continue
        target = row["targetId"]
        if target in changed or (
            not match.notes_only
            and (match.ids is None or target in named)
            and match.in_window(row["at"])
            and (target not in holders or target in going)
        ):
            take(str(row["kind"]), str(row["id"]), target)
    loose = set(result.loose)
    result.loose = [key for key in result.traces.get("journalEntry", []) if key in loose]


def _trace_holds(row: dict[str, Any], query: str) -> bool:
    return any(json_holds(text, query) or state_payload_holds(text, query) for text in row["json"]) or any(
        field_holds("data", t, query) for t in row["plain"]
    )


def field_holds(name: str, value: Any, query: str) -> bool:
    """Whether a field's value holds the folded ``query``: its text, or for a payload
    (``data``) any key or string of the JSON it holds (where a quote or backslash is escaped)."""
    return holds(value, query) or (name == PAYLOAD and payload_holds(value, query))


def _hits(text: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [r for r in text if r["kind"] == kind]


def _narrow(match: ForgetMatch, hits: Sequence[dict[str, Any]]) -> list[str] | None:
    """The keys a kind's statement is limited to: the ids named, and with a query those of
    them that hold it (``None``: no limit)."""
    ids = set(match.ids) if match.ids is not None else None
    if match.query is not None:
        keys = {r["id"] for r in hits}
        ids = keys if ids is None else ids & keys
    return sorted(ids) if ids is not None else None


def _window(match: ForgetMatch) -> dict[str, Any]:
    return {"before": match.before, "after": match.after}


def _list(values: Iterable[str] | None) -> list[str] | None:
    return list(values) if values is not None else None


async def _listed(run: Run, name: str, /, **params: Any) -> list[dict[str, Any]]:
    """The rows of a plan query that answers them as one list (:func:`listed`): thousands of
    rows come through the driver several times faster so."""
    return listed(await run(name, **params))


def record(found: ForgetPlan, match: ForgetMatch, journal_ids: int) -> dict[str, Any]:
    """What the journal keeps of a run: the criteria's names, the counts, the ids (at most
    ``journal_ids`` of each kind; never text)."""
    ids = {
        "notes": [n["id"] for n in found.notes],
        "insights": [i["id"] for i in found.insights],
        "threads": [t["id"] for t in found.threads],
        "wikiPages": [p["sessionId"] for p in found.pages],  # a slug is made of the page's words
        **{
            f"{kind}s": found.records.get(kind, [])
            for kind in RECORDS
            if kind != "preference"  # its key is its name, the user's words
        },
        "changed": [f"{c['kind']}:{c['id']}" for c in found.changes if c["kind"] != "edge"],
    }
    return {
        "match": match.fields(),
        "counts": found.counts(),
        "ids": {k: v[:journal_ids] for k, v in ids.items() if v},
        "idsCut": any(len(v) > journal_ids for v in ids.values()),
    }
