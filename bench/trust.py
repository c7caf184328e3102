"""A person's word, measured in one process on one private Neo4j.

* **Truth checks on batch create**: 1,000 notes with vectors (dedupe off) per call, taking
  turns call by call: a person's key (no truth checks: what a batch cost before them), an
  agent's key on a user from whom nothing was taken away (the fingerprint check only), and
  an agent's key on a user with a correction that took agent text away (the service reads
  every text itself: one embedding per note). Beside them, the embedder alone on the same
  1,000 texts.
* **Undo of a delete**: with the vector the delete's mutation kept, and, taking turns, the
  same undo with that vector removed (it embeds the note again, as every undo did before).
  Goal: p95 <= 100 ms.
* **Correction replay** through the real API: 100 corrections by a person, then 1,000 agent
  writes that contradict them through every path (creates with and without vectors of the
  agent's own, a batch, PATCHes of the corrected note and of another, a reworded twin, the
  delete of the corrected note, the undo of the person's fix, a supersedes edge onto it, a
  rewrite of its title): how many corrections stand unchanged, and how many rank first
  when searched for in their own words. Goal: 100 % and 100 %.

``python -m bench.trust`` (``quick``: fewer rounds, figures not saved).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

import httpx

from bench.common import machine, private_neo4j, save, summary_ms
from bench.corpus import Corpus
from bench.journal import api_in_process, batch_of, build_embedder_for_bench
from graph.core import journal
from graph.core.db import Database
from graph.core.principals import ApiKeys, Principal, Role
from graph.core.schema import migrate
from graph.core.settings import Settings
from graph.core.users import forget_user
from graph.knowledge.models import KnowledgeType, NewNote
from graph.knowledge.notes import NoteService
from graph.knowledge.undo import UndoService

BATCH = 1_000
SIDES = ("person", "agent_nothing_taken", "agent_text_taken")


async def truth_checks(db: Database, rounds: int) -> dict[str, Any]:
    """Batch create with vectors by a person, and by an agent before and after a person took
    text away, taking turns; and the embedder alone on the same texts."""
    embedder = build_embedder_for_bench()
    service = NoteService(db, embedder)
    users = {side: f"bench-trust-{side}" for side in SIDES}
    person = {side: Principal(user_id=user, role=Role.HUMAN) for side, user in users.items()}
    agent = {side: Principal(user_id=user, role=Role.AGENT, agent_id="bench") for side, user in users.items()}
    # The third user has a correction that took agent text away.
    taken = users["agent_text_taken"]
    wrong = NewNote(title="Port", content="Staging listens on port 7688.", type=KnowledgeType.FACT)
    await service.create(agent["agent_text_taken"], [dataclasses.replace(wrong, id="wrong")], batch=False)
    await service.delete(person["agent_text_taken"], "wrong")
    rows = await db.read("queries/knowledge/corrections_text_any", userId=taken)
    assert rows[0]["any"], "the correction took no text away"  # noqa: S101 - the bench's premise
    corpus = Corpus()
    for side in SIDES:  # warm-up
        caller = person[side] if side == "person" else agent[side]
        await service.create(caller, batch_of(corpus, f"warm-{side}-", 0, BATCH), batch=True)
    spent: dict[str, list[float]] = {side: [] for side in SIDES}
    embed_alone: list[float] = []
    for r in range(rounds):
        order = SIDES if r % 2 == 0 else tuple(reversed(SIDES))
        for side in order:
            caller = person[side] if side == "person" else agent[side]
            items = batch_of(corpus, f"{side}-", r * BATCH, BATCH)
            started = time.perf_counter()
            await service.create(caller, items, batch=True)
            spent[side].append(time.perf_counter() - started)
        texts = [f"{n.title}\n{n.content}" for n in batch_of(corpus, "alone-", r * BATCH, BATCH)]
        started = time.perf_counter()
        await embedder.embed(texts)
        embed_alone.append(time.perf_counter() - started)
    rate = {side: round(rounds * BATCH / sum(seconds)) for side, seconds in spent.items()}
    paired = {
        side: round(statistics.median(p / a for p, a in zip(spent["person"], spent[side], strict=True)), 3)
        for side in SIDES[1:]
    }
    return {
        "notes_per_s": rate,
        "ratio_to_person_paired_median": paired,
        "embedder_alone_notes_per_s": round(rounds * BATCH / sum(embed_alone)),
    }


async def undo_of_delete(db: Database, undos: int) -> dict[str, Any]:
    """Undo of a delete, the vector kept, and with the vector removed (embedded again)."""
    embedder = build_embedder_for_bench()
    service = NoteService(db, embedder)
    undo = {"vector_kept": UndoService(db, embedder), "embedded_again": UndoService(db, OtherModel(embedder))}
    person = Principal(user_id="bench-trust-undo", role=Role.HUMAN)
    corpus = Corpus()
    notes = [dataclasses.replace(n, embedding=None) for n in batch_of(corpus, "u-", 0, 2 * undos + 2)]
    await service.create(person, notes, batch=True)  # the service embeds them
    spent: dict[str, list[float]] = {side: [] for side in undo}
    for i, note in enumerate(notes):
        side = "vector_kept" if i % 2 == 0 else "embedded_again"  # the first two: warm-up
        assert note.id is not None  # noqa: S101 - batch_of gives ids
        await service.delete(person, note.id)
        [m], _ = await journal.list_mutations(db, person, target_id=note.id, limit=1)
        started = time.perf_counter()
        await undo[side].undo(person, m)
        if i >= 2:
            spent[side].append(time.perf_counter() - started)
    await forget_user(db, person.user_id)  # its notes carry the other model's id
    return {side: summary_ms(samples) for side, samples in spent.items()}


class OtherModel:
    """The same embedder under another model id: a kept vector is not its own, so an undo
    embeds the note again (what every undo of a delete did before vectors were kept)."""

    def __init__(self, embedder: Any) -> None:
        self._embedder = embedder
        self.model_id = f"{embedder.model_id}-other"
        self.dimension = embedder.dimension

    async def embed(self, texts: Sequence[str]) -> Any:
        return await self._embedder.embed(texts)


def fact(i: int, right: bool) -> str:
    return f"Service {i} listens on port {8000 + i if right else 7000 + i} in production."


#: A vector of the agent's own (not the service's reading of any text).
OWN_VECTOR = [1.0] + [0.0] * 383


def contradict(agent: httpx.Client, i: int, fix: str) -> list[tuple[str, httpx.Response]]:
    """Ten agent writes that would put back what a person corrected in note ``c{i}``."""
    text, title = fact(i, False), f"Service {i} port"
    note = {"title": title, "content": text, "type": "fact"}
    reworded = {
        "id": f"e{i}", "title": f"Port of service {i}", "type": "fact", "dedupe": False,
        "content": f"In production, service {i} listens on port {7000 + i}.",
    }  # fmt: skip
    batch = {"items": [note | {"id": f"d{i}", "embedding": OWN_VECTOR, "dedupe": False}]}
    supersede = {"type": "supersedes", "targetId": f"c{i}"}
    return [
        (
            "create, own vector",
            agent.post("/v1/knowledge", json=note | {"id": f"a{i}", "embedding": OWN_VECTOR}),
        ),
        ("create, folded", agent.post("/v1/knowledge", json=note | {"id": f"b{i}"})),
        ("batch, own vector", agent.post("/v1/knowledge/batch", json=batch)),
        ("reworded twin", agent.post("/v1/knowledge", json=reworded)),
        ("PATCH back", agent.patch(f"/v1/knowledge/c{i}", json={"content": text})),
        ("PATCH title", agent.patch(f"/v1/knowledge/c{i}", json={"title": "Old port"})),
        ("PATCH another note", agent.patch(f"/v1/knowledge/s{i}", json={"title": title, "content": text})),
        ("delete", agent.delete(f"/v1/knowledge/c{i}")),
        ("undo the fix", agent.post(f"/v1/mutations/{fix}/undo")),
        ("supersede", agent.post(f"/v1/knowledge/s{i}/connections", json=supersede)),
    ]


def replay(settings: Settings, corrections: int) -> dict[str, Any]:
    """100 corrections, then 10 contradicting agent writes each, through the API."""

    async def make_keys() -> tuple[str, str]:
        db = Database.from_settings(settings)
        try:
            _, person = await ApiKeys(db).create("bench-trust-replay", Role.HUMAN)
            _, agent = await ApiKeys(db).create("bench-trust-replay", Role.AGENT, agent_id="bench")
            return person, agent
        finally:
            await db.close()

    person_key, agent_key = asyncio.run(make_keys())
    answers: Counter[str] = Counter()
    leaks: list[str] = []
    with api_in_process(settings) as url:
        person = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {person_key}"}, timeout=120)
        agent = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {agent_key}"}, timeout=120)
        for i in range(corrections):
            wrong = {"id": f"c{i}", "title": f"Service {i} port", "content": fact(i, False), "type": "fact"}
            agent.post("/v1/knowledge", json=wrong | {"dedupe": False}).raise_for_status()
            scratch = {
                "id": f"s{i}",
                "title": f"Scratch {i}",
                "content": f"Scratch note {i}.",
                "type": "fact",
            }
            agent.post("/v1/knowledge", json=scratch | {"dedupe": False}).raise_for_status()
            person.patch(f"/v1/knowledge/c{i}", json={"content": fact(i, True)}).raise_for_status()
        fixes = {
            m["targetId"]: m["id"]
            for m in person.get("/v1/mutations", params={"actorRole": "human", "limit": 500}).json()["items"]
        }
        for i in range(corrections):
            for path, answer in contradict(agent, i, fixes[f"c{i}"]):
                answers[f"{path}: {answer.status_code}"] += 1
                outcomes = answer.json().get("results", [{}]) if answer.status_code == 201 else [{}]
                if answer.status_code in (200, 201, 204) and outcomes[0].get("outcome") != "proposed":
                    leaks.append(f"{path} c{i}: {answer.status_code}")
        standing = first = 0
        for i in range(corrections):
            got = person.get(f"/v1/knowledge/c{i}")
            if (
                got.status_code == 200
                and got.json()["content"] == fact(i, True)
                and got.json()["status"] == "active"
            ):
                standing += 1
            hits = person.post(
                "/v1/search", json={"query": f"Which port does service {i} listen on?", "topK": 3}
            ).json()["hits"]
            first += bool(hits) and hits[0]["node"]["id"] == f"c{i}"
        person.close()
        agent.close()
    return {
        "corrections": corrections,
        "agent_writes": sum(answers.values()),
        "corrections_standing": standing,
        "corrections_ranking_first": first,
        "answers": dict(sorted(answers.items())),
        "writes_that_went_through": leaks[:20],
    }


def main(quick: bool = False) -> dict[str, Any]:
    rounds, undos, corrections = (2, 10, 10) if quick else (8, 100, 100)
    with private_neo4j("ctxnet-bench-trust-") as (settings, _, local):
        local.start()

        async def services() -> dict[str, Any]:
            db = Database.from_settings(settings)
            try:
                await migrate(db, 384)
                return {
                    "truth_checks_batch_create": await truth_checks(db, rounds),
                    "undo_delete": await undo_of_delete(db, undos),
                }
            finally:
                await db.close()

        figures = asyncio.run(services())
        figures["correction_replay"] = replay(settings, corrections)
    figures["p95_goal_met"] = figures["undo_delete"]["vector_kept"]["p95_ms"] <= 100
    print(json.dumps(figures, indent=2))
    if quick:
        return figures
    path = save("trust", figures)
    print(f"trust figures on {machine()['cpu']} ({machine()['cores']} cores) -> {path}")
    return figures


if __name__ == "__main__":
    main(quick=sys.argv[1:] == ["quick"])
