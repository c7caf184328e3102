"""Where the update rule is unsure, a model decides, never on the write path: the pairs of notes
the rule left undecided, read again after the fact, and the model's verdict on each applied as
the rule would apply its own.

A note created since the judge's watermark (:func:`scan`) is compared with its stored
candidates exactly as a create compares it (:func:`graph.knowledge.dedupe.stored_candidates`,
then :func:`graph.knowledge.subjects.relate` nearest first, in a worker thread), with only the
notes created before it: each pair is (older note, newer note). The walk stops where the
create's did (an update it decided, a conflict it linked, a near twin it would fold); the
pairs :func:`graph.knowledge.dedupe.undecided` names on the way are the questions
(:func:`undecided_pairs`). A model answers each with ``updates``, ``contradicts`` or
``resembles`` (:data:`PAIR_INSTRUCTIONS`), and :func:`apply_verdicts`, under the user's write
gate, makes the newer note ``supersedes`` the older one (marking it superseded) or
``conflictsWith`` it, as a create's update does (:func:`graph.knowledge.edges.link`,
journaled as the judge's pipeline), at most one change per newer note (the nearest its
verdicts change), and only while both notes are active and read as they were judged. What the
rule made stays: the judge only adds. A change over a note whose text or standing a person
wrote or corrected, or an edge a person removed, becomes a proposal (``edge.connect``), as an
agent's would.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from neo4j import AsyncManagedTransaction

from graph.core import journal
from graph.core.db import Database, run_rows
from graph.core.errors import Conflict
from graph.core.gate import Gated
from graph.core.principals import Principal
from graph.core.scopes import require_unscoped
from graph.core.vectors import VectorPlanConfig
from graph.knowledge import corrections
from graph.knowledge.dedupe import CANDIDATES, Thresholds, Twin, stored_candidates, undecided
from graph.knowledge.edge_states import edge_payload, edge_row
from graph.knowledge.edges import link, people_words
from graph.knowledge.models import EdgeType, KnowledgeSource, KnowledgeStatus, NewEdge, rel_type_of
from graph.knowledge.subjects import Relation, relate

#: The verdicts a model may give a pair, and the edge each makes (``resembles``: none).
UPDATES, CONTRADICTS, RESEMBLES = "updates", "contradicts", "resembles"
VERDICTS = (UPDATES, CONTRADICTS, RESEMBLES)
EDGE_OF = {UPDATES: EdgeType.SUPERSEDES, CONTRADICTS: EdgeType.CONFLICTS_WITH}
#: How much of a note's title and content a model reads.
CUT = 1_500

PAIR_INSTRUCTIONS = (
    "You judge pairs of notes from one person's memory. In each pair, `old` was stored first and "
    "`new` later. Say what `new` is to `old`:\n"
    "- updates: the same property of the same thing (person, object, place, plan) with a new value, "
    "so `old` is no longer current (a moved place, a changed time, a new number, a replaced choice);\n"
    "- contradicts: the same property of the same thing with an incompatible value, and nothing says "
    "which one is current;\n"
    "- resembles: anything else: the same statement again, another thing (another id, ordinal, "
    "person, period or place), or another property of the same thing.\n"
    "When unsure, answer resembles."
)


@dataclass(frozen=True)
class Scanned:
    """A note created after the judge's watermark, as it stands now (``status`` ``None``: gone)."""

    seq: int
    part: int
    id: str
    status: str | None
    title: str
    content: str
    kind: str | None
    embedding: list[float] | None
    #: Created with dedupe off: compared with nothing (a project entry's notices are still judged).
    uncompared: bool = False

    @property
    def judged(self) -> bool:
        """Whether its pairs are looked for: an active note, not a project entry, created with
        dedupe on."""
        active = self.status == KnowledgeStatus.ACTIVE.value
        return active and self.kind is None and self.embedding is not None and not self.uncompared


@dataclass(frozen=True)
class Pair:
    """A pair the rule left undecided: the older note, the newer, and how the rule read them."""

    older: str
    newer: str
    relation: str
    similarity: float
    old_text: tuple[str, str]
    new_text: tuple[str, str]

    @property
    def key(self) -> str:
        """The pair's id among the judge's questions and memo."""
        return f"{self.older}>{self.newer}"

    def item(self) -> dict[str, Any]:
        """The pair as the model reads it (text cut at :data:`CUT`)."""
        return {
            "old": {"title": self.old_text[0][:CUT], "content": self.old_text[1][:CUT]},
            "new": {"title": self.new_text[0][:CUT], "content": self.new_text[1][:CUT]},
        }

    def view(self) -> dict[str, Any]:
        """The pair as a job's report shows it."""
        return {
            "older": self.older, "newer": self.newer, "rule": self.relation,
            "similarity": round(self.similarity, 4),
        }  # fmt: skip


async def scan(gated: Gated, limit: int, *, with_embedding: bool = True) -> list[Scanned]:
    """The user's notes created after the judge's watermark, in the journal's order, at most ``limit``."""
    rows = await gated.run("queries/knowledge/judge_scan", limit=limit, withEmbedding=with_embedding)
    return [
        Scanned(
            int(r["seq"]), int(r["part"]), str(r["id"]), r["status"], r["title"] or "", r["content"] or "",
            r["kind"], list(r["embedding"]) if r["embedding"] is not None else None,
            bool(r["uncompared"]),
        )
        for r in rows
    ]  # fmt: skip


async def read_new(
    db: Database, user_id: str, limit: int, limits: Thresholds, plan: VectorPlanConfig
) -> tuple[list[Scanned], dict[str, list[Pair]]]:
    """In one read transaction: the notes created after the watermark (:func:`scan`) and their
    undecided pairs (:func:`undecided_pairs`), the vector plan chosen from the user's exact
    note count, as a create chooses it."""

    async def read(tx: AsyncManagedTransaction) -> tuple[list[Scanned], dict[str, list[Pair]]]:
        [counts] = await run_rows(tx, "queries/knowledge/note_counts", userId=user_id)
        gated = Gated(tx, user_id, seq=0, notes=int(counts["mine"]))
        notes = await scan(gated, limit)
        return notes, await undecided_pairs(gated, notes, limits, plan)

    return await db.read_tx(read)


async def waiting(db: Database, user_id: str) -> bool:
    """Whether any note was created after the judge's watermark."""

    async def look(tx: AsyncManagedTransaction) -> bool:
        return bool(await scan(Gated(tx, user_id, seq=0, notes=0), 1, with_embedding=False))

    return await db.read_tx(look)


async def mark(gated: Gated, seq: int, part: int) -> None:
    """Move the watermark on to this note.create (never back)."""
    await gated.run("queries/knowledge/judge_mark", seq=seq, part=part)


@dataclass(frozen=True)
class _Looking:
    """A scanned note as :func:`stored_candidates` takes it."""

    index: int
    node_id: str
    embedding: list[float]
    text: tuple[str, str]


async def undecided_pairs(
    gated: Gated, notes: Sequence[Scanned], limits: Thresholds, plan: VectorPlanConfig
) -> dict[str, list[Pair]]:
    """For each note (by id, judged notes only), the pairs with older notes the rule leaves
    undecided, in the order a create's walk meets them."""
    looking = [
        _Looking(i, n.id, n.embedding, (n.title, n.content))
        for i, n in enumerate(notes)
        if n.judged and n.embedding is not None
    ]
    if not looking:
        return {}
    # Each note is stored already: it is its own nearest, so one more is asked for.
    near = await stored_candidates(gated, looking, floor=limits.floor, plan=plan, limit=CANDIDATES + 1)
    ids = sorted({t.node_id for twins in near.values() for t in twins} | {n.id for n in notes})
    known = {str(r["id"]): r for r in await gated.run("queries/knowledge/judge_notes", ids=ids)}
    return await asyncio.to_thread(_walk, looking, near, known, limits)


def _walk(
    looking: Sequence[_Looking], near: dict[int, list[Twin]], known: dict[str, Any], limits: Thresholds
) -> dict[str, list[Pair]]:
    """Each note's undecided pairs (in a worker thread: it reads texts)."""
    found: dict[str, list[Pair]] = {}
    for note in looking:
        me = known.get(note.node_id)
        if me is None:
            continue
        mine = (int(me["seq"]), int(me["part"]))
        older = [
            t for t in near.get(note.index, [])
            if t.node_id != note.node_id and t.node_id in known
            and (int(known[t.node_id]["seq"]), int(known[t.node_id]["part"])) < mine
        ]  # fmt: skip
        pairs: list[Pair] = []
        for rank, twin in enumerate(older):
            near_twin = rank == 0 and twin.similarity >= limits.dedupe
            old = known[twin.node_id]
            old_text = (str(old["title"]), str(old["content"]))
            relation, _ = relate(*old_text, *note.text, twin=near_twin)
            if near_twin and relation is Relation.RESTATEMENT:
                break  # a twin the create would fold: decided
            if undecided(relation, near_twin):
                pairs.append(
                    Pair(twin.node_id, note.node_id, relation.value, twin.similarity, old_text, note.text)
                )
            if relation.changes:
                break  # the create changed this one (an update, or a conflict it linked)
        if pairs:
            found[note.node_id] = pairs
    return found


async def apply_verdicts(
    gated: Gated, principal: Principal, judged: Sequence[tuple[Pair, str]], judge_name: str
) -> list[dict[str, Any]]:
    """Under the user's write gate: each pair's verdict applied as the rule applies its own (the
    module docstring), journaled as ``principal`` (the judge's pipeline); what happened to each
    pair, in order (``outcome``: applied, proposed, unchanged, changedSince, already, loop,
    rejectedBefore, anotherChange)."""
    require_unscoped(principal, "the judge (it reaches every part of the memory)")
    if not judged:
        return []
    states = {
        r["key"]: r
        for r in await gated.run(
            "queries/knowledge/judge_pairs_state",
            pairs=[{"key": p.key, "older": p.older, "newer": p.newer} for p, _ in judged],
        )
    }
    held = await corrections.held(gated, sorted({p.older for p, v in judged if v in EDGE_OF}))
    outcomes: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []
    changed: set[str] = set()  # newer notes given their change by this write
    for pair, verdict in judged:
        outcome = pair.view() | {"verdict": verdict}
        outcomes.append(outcome)
        state = states[pair.key]
        why = _standing(pair, verdict, state, changed)
        if why is not None:
            outcome["outcome"] = why
            continue
        kind = EDGE_OF[verdict]
        edge = NewEdge(
            pair.newer, kind, pair.older, confidence=float(state["confidence"]),
            source=KnowledgeSource.INFERRED, note=f"judged by {judge_name}: {verdict}",
        )  # fmt: skip
        changed.add(pair.newer)
        holders = held.get(pair.older, {})
        by = {k: holders[k] for k in sorted(set(holders) & {"title", "content", "status"})}
        [word] = await people_words(gated, [edge])
        if not word["stands"] and word["removedBy"] is not None:
            by["edge"] = word["removedBy"]
        if by:
            outcome |= await _propose(gated, principal, edge, by)
            continue
        rows.append(edge_row(len(rows), edge))
        outcome["outcome"] = "applied"
    if rows:
        changes = await link(gated, principal, rows)
        superseding = sorted(
            {r["sourceId"] for r in rows if r["relType"] == rel_type_of(EdgeType.SUPERSEDES)}
        )
        [loops] = await gated.run("queries/knowledge/supersede_loops", ids=superseding)
        if loops["looping"]:  # edges of this write closing a loop together: nothing is written
            raise Conflict(f"the judge's edges would close a loop of supersedes edges: {loops['looping']}")
        await journal.record_many(gated, principal, changes)
    return outcomes


def _standing(pair: Pair, verdict: str, state: dict[str, Any], changed: set[str]) -> str | None:
    """Why a verdict changes nothing now (``None``: it makes its edge)."""
    active = KnowledgeStatus.ACTIVE.value
    if verdict not in EDGE_OF:
        return "unchanged"
    if (state["olderStatus"], state["newerStatus"]) != (active, active) or (
        (state["olderTitle"], state["olderContent"]),
        (state["newerTitle"], state["newerContent"]),
    ) != (pair.old_text, pair.new_text):
        return "changedSince"
    if state["supersedes"] or (verdict == CONTRADICTS and state["conflicts"]):
        return "already"
    if verdict == UPDATES and state["loops"]:
        return "loop"
    if pair.newer in changed:
        return "anotherChange"  # the rule changes one note per new note: the nearest
    return None


async def _propose(
    gated: Gated, principal: Principal, edge: NewEdge, by: dict[str, str | None]
) -> dict[str, Any]:
    """A change a person's word holds back, as the ``edge.connect`` proposal a person decides."""
    try:
        proposal = await corrections.propose(
            gated, principal, op="edge.connect", target_id=edge.target_id,
            payload={"edges": [edge_payload(edge)]}, fields=by, corrections=by.values(),
        )  # fmt: skip
    except corrections.Rejected as rejected:
        return {"outcome": "rejectedBefore", "proposalId": rejected.proposal["id"]}
    return {"outcome": "proposed", "proposalId": proposal["id"]}
