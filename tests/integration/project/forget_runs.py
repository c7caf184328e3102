"""One generated user, whole (:func:`grow`), and the forgets run on it (:func:`matches`): by
query alone, by query within a window that splits a subject's things, by tags, by source, by
ids alone, by ids and query; each aimed at a subject (tags and ids with query at the same
one), while one subject is never aimed at and holds links to the others."""

from __future__ import annotations

import asyncio
import io
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from ctxnet.client import AsyncClient
from ctxnet.io.whole import export_all
from graph.core.db import Database
from graph.core.principals import Role
from tests.integration.conftest import Caller, MakeCaller, inspect
from tests.integration.project.export_records import Export, Match, latest
from tests.integration.project.shapes import Subject, World, subjects
from tests.integration.project.shapes_knowledge import Words, across, chain, knowledge, vocabulary
from tests.integration.project.shapes_records import agent_docs, conversation, profile, records

#: The subjects' parts, in the order they are made.
ROLES = ("query", "window", "tags", "ids", "kept")


@dataclass
class Grown:
    """A generated user: its world, each role's subject and words, and the moment that splits
    the windowed subject's things in two."""

    world: World
    cast: dict[str, Subject]
    words: dict[str, Words]
    later: Words
    boundary: datetime = datetime.min.replace(tzinfo=UTC)
    notes: dict[str, list[str]] = field(default_factory=dict)


async def whole(caller: Caller, base_url: str) -> str:
    """The user's whole export (``ctxnet export --all``), as text."""
    out = io.StringIO()
    async with AsyncClient(base_url, caller.key) as client:
        await export_all(client, out)
    return out.getvalue()


async def quiet(db: Database, user_id: str) -> None:
    """Wait (polling, with a deadline) until every thread's gist is made: the background
    refresh writes to the user, and an export must not change under it."""
    for _ in range(600):
        [row] = await inspect(
            db,
            "MATCH (t:Thread) WHERE t.userId = $u AND coalesce(t.embeddedSeq, -1) <> t.messageCount "
            "RETURN count(t) AS behind",
            u=user_id,
        )
        if row["behind"] == 0:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the threads' gists were not refreshed in 30 s")


async def grow(make_caller: MakeCaller, rng: random.Random, base_url: str, db: Database) -> Grown:
    """A person and an agent of a new user write every shape about five subjects (side by side,
    each subject from its own random stream); the windowed subject's shapes are written twice,
    before and after a boundary read from the export (no clock is waited on: everything after
    it was written after the export)."""
    person = await make_caller()
    agent = await make_caller(Role.AGENT, agent_id="helper", user_id=person.user_id)
    world = World(person, agent, rng)
    cast = dict(zip(ROLES, subjects(rng, len(ROLES)), strict=True))
    *words, later = vocabulary(rng, len(ROLES) + 1)
    later.second = True
    grown = Grown(world, cast, dict(zip(ROLES, words, strict=True)), later)

    async def about(role: str, s: Subject) -> None:
        grown.notes[role] = await knowledge(world, s, grown.words[role])
        await records(world, s, grown.words[role])
        if role != "window":
            await profile(world, s, grown.words[role], background=role == "query")

    await asyncio.gather(*(about(role, s) for role, s in cast.items()))
    for role in ("query", "window", "tags", "ids"):
        await across(world, cast[role], cast["kept"], grown.notes["kept"], grown.notes[role])
    await agent_docs(world, [s for role, s in cast.items() if role != "window"], cast["query"], "helper")
    await quiet(db, person.user_id)
    grown.boundary = latest(await whole(person, base_url)) + timedelta(milliseconds=1)
    # After the boundary: the windowed subject again, its chain and first thread carried on.
    s, w = cast["window"], grown.words["window"]

    async def again() -> None:
        grown.notes["window"] += await knowledge(world, s, later, chain_length=2)
        await records(world, s, later)

    await asyncio.gather(
        again(), chain(world, s, w, 2, start=3), conversation(world, s, w, thread=world.of(s, "thread")[0])
    )
    return grown


def matches(grown: Grown, before: Export) -> list[tuple[str, Match]]:
    """The forgets to run, in order: the window first (before other runs change the things it
    splits), then the others in a random order, tags before ids and query (the same subject's:
    the tagged notes are not yet gone)."""
    cast, rng, world = grown.cast, grown.world.rng, grown.world
    q, at = cast["window"].query, grown.boundary
    window = Match(query=q, before=at) if rng.random() < 0.5 else Match(query=q, after=at)
    ids, mixed = cast["ids"], cast["tags"]
    named = _named(grown, before, ids, rng)
    mixed_named = _named(grown, before, mixed, rng, threads=False) + rng.sample(grown.notes["kept"], 3)
    mixed_named += world.of(mixed, "gone")
    others = [
        ("query", Match(query=cast["query"].query)),
        ("tags", Match(tags=(cast["tags"].tag, "no-such-tag"))),
        ("source", Match(source="docs")),
        ("ids", Match(ids=tuple(named))),
        ("ids+query", Match(ids=tuple(mixed_named), query=mixed.query)),
    ]
    rng.shuffle(others)
    labels = [label for label, _ in others]
    if labels.index("ids+query") < labels.index("tags"):  # both aim at one subject: tags first
        a, b = labels.index("ids+query"), labels.index("tags")
        others[a], others[b] = others[b], others[a]
    return [("window", window), *others]


def _named(grown: Grown, before: Export, s: Subject, rng: random.Random, threads: bool = True) -> list[str]:
    """Ids of a subject's things that name whole units: notes (not decisions, whose notices a
    forget by id may or may not take), the newest of a chain only, its thread with the thread's
    insights and the notes drawn from them, its page with the page's insights, goals, skills,
    some pending actions."""
    world = grown.world
    notes = [n for n in world.of(s, "note") if rng.random() < 0.7] + world.of(s, "chain")[-1:]
    notes += rng.sample(world.of(s, "conflict"), 2)
    named = set(notes) | set(world.of(s, "goal")) | set(world.of(s, "skill"))
    named |= set(rng.sample(world.of(s, "pending"), 1))
    for slug in world.of(s, "page"):
        named |= {slug} | {k for k, p in before.of("Insight") if p.get("pageSlug") == slug}
    if threads:
        for thread in world.of(s, "thread"):
            insights = {k for k, p in before.of("Insight") if p.get("threadId") == thread}
            derived = {n for _, n, i in _derived(before) if i in insights}
            named |= {thread} | insights | derived
    derived_pairs = _derived(before)
    for _, note, insight in derived_pairs:  # a note drawn from an insight is named with it, and back
        if note in named or insight in named:
            named |= {note, insight}
    return sorted(named)


def _derived(before: Export) -> list[tuple[str, str, str]]:
    return [(t, s[1], e[1]) for (t, s, e) in before.rels if t == "DERIVED_FROM"]
