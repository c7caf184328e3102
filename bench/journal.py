"""Journal overhead and undo latency, side by side in one process on one private Neo4j.

* Batch create (1,000 notes per call, vectors given, dedupe off) through the note service,
  with the journal on and with it off (see ``journal_off``; this process only),
  alternating call by call so both sides meet the same database state.
  Goal: with the journal, at least 0.85x the throughput without it.
* The same batches through the real API (``POST /v1/knowledge/batch``, an agent's key,
  served by uvicorn in this process so the switch reaches it), timed by ``Server-Timing``.
* Single creates the same way (p50 per note).
* Undo: of a confidence update (no embedding), and of a delete (the note is embedded again).

``python -m bench.journal`` (``quick``: fewer rounds, figures not saved).
"""

from __future__ import annotations

import asyncio
import json
import re
import statistics
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

import httpx
import uvicorn

from api.app import create_app
from bench.common import machine, percentile, private_neo4j, save, summary_ms
from bench.corpus import Corpus, server_seconds
from graph.core import db as db_module
from graph.core import journal
from graph.core.cypher import cypher_text
from graph.core.db import Database
from graph.core.embeddings import build_embedder
from graph.core.principals import ApiKeys, Principal, Role
from graph.core.schema import migrate
from graph.core.settings import Settings
from graph.knowledge.models import KnowledgeSource, KnowledgeType, NewNote, NotePatch
from graph.knowledge.notes import NoteService
from graph.knowledge.undo import UndoService
from tests.support.servers import free_port

BATCH = 1_000


#: The clause of ``queries/knowledge/notes_create`` that journals each new note.
INLINE_JOURNAL = re.compile(r"^CREATE \(:Mutation \{.*?\}\)-\[:CHANGED\]->\(n\)\n", re.S | re.M)


@contextmanager
def journal_off() -> Any:
    """The note service without its journal (this process only, for the comparison):
    ``journal.record_many`` does nothing, and the create statement, which journals its new
    notes itself, runs without that clause (found in the shipped statement, so the two
    sides never drift apart; the benchmark stops if it is not there)."""

    async def nothing(*_: Any, **__: Any) -> list[str]:
        return []

    shipped = cypher_text("queries/knowledge/notes_create")
    bare, found = INLINE_JOURNAL.subn("", shipped)
    if found != 1:
        raise RuntimeError("queries/knowledge/notes_create no longer has its journal clause")

    def text(name: str) -> str:
        return bare if name == "queries/knowledge/notes_create" else cypher_text(name)

    kept = journal.record_many, db_module.cypher_text
    journal.record_many = nothing  # type: ignore[assignment]
    db_module.cypher_text = text  # type: ignore[assignment]
    try:
        yield
    finally:
        journal.record_many, db_module.cypher_text = kept  # type: ignore[assignment]


def batch_of(corpus: Corpus, prefix: str, start: int, count: int) -> list[NewNote]:
    vectors, topics = corpus.notes(count)
    return [
        NewNote(
            id=f"{prefix}{start + i}",
            title=f"topic {topics[i]} {corpus.text(topics[i], 3)}",
            content=corpus.text(topics[i], 30),
            type=KnowledgeType.FACT,
            source=KnowledgeSource.DOCS,
            embedding=vectors[i].tolist(),
            dedupe=False,
        )  # fmt: skip
        for i in range(count)
    ]


async def timed(call: Callable[[], Awaitable[Any]]) -> float:
    started = time.perf_counter()
    await call()
    return time.perf_counter() - started


async def run(db: Database, rounds: int, singles: int, undos: int) -> dict[str, Any]:
    embedder = build_embedder_for_bench()
    service = NoteService(db, embedder)
    undo = UndoService(db, embedder)
    agent = Principal(user_id="bench-journal", role=Role.AGENT, agent_id="bench")
    corpus = Corpus()
    figures: dict[str, Any] = {}

    # Warm-up: both sides, one batch each.
    await service.create(agent, batch_of(corpus, "warm-on-", 0, BATCH), batch=True)
    with journal_off():
        await service.create(agent, batch_of(corpus, "warm-off-", 0, BATCH), batch=True)

    spent: dict[str, list[float]] = {"on": [], "off": []}
    for r in range(rounds):
        for side in ("on", "off") if r % 2 == 0 else ("off", "on"):
            items = batch_of(corpus, f"{side}-", r * BATCH, BATCH)
            if side == "on":
                spent[side].append(await timed(lambda items=items: service.create(agent, items, batch=True)))
            else:
                with journal_off():
                    spent[side].append(
                        await timed(lambda items=items: service.create(agent, items, batch=True))
                    )
    rate = {side: len(seconds) * BATCH / sum(seconds) for side, seconds in spent.items()}
    figures["batch_create_notes_per_s"] = {side: round(v) for side, v in rate.items()}
    figures["batch_create_ratio"] = round(rate["on"] / rate["off"], 3)
    # Each round's two batches ran back to back: their ratio is free of the drift between
    # rounds (index merges, checkpoints), which on 2 cores moves a batch by +-30 %.
    paired = sorted(off / on for on, off in zip(spent["on"], spent["off"], strict=True))
    figures["batch_create_ratio_paired"] = {
        "median": round(statistics.median(paired), 3),
        "p25": round(percentile(paired, 25), 3),
        "p75": round(percentile(paired, 75), 3),
    }

    single: dict[str, list[float]] = {"on": [], "off": []}
    for i in range(singles):
        for side in ("on", "off") if i % 2 == 0 else ("off", "on"):
            [item] = batch_of(corpus, f"single-{side}-", i, 1)
            if side == "on":
                single[side].append(await timed(lambda item=item: service.create(agent, [item], batch=False)))
            else:
                with journal_off():
                    single[side].append(
                        await timed(lambda item=item: service.create(agent, [item], batch=False))
                    )
    figures["single_create"] = {side: summary_ms(samples) for side, samples in single.items()}
    figures["single_create_p50_overhead_ms"] = round(
        figures["single_create"]["on"]["p50_ms"] - figures["single_create"]["off"]["p50_ms"], 2
    )

    update_undos, delete_undos = [], []
    for i in range(undos):
        node_id = f"on-{i}"
        await service.update(agent, node_id, NotePatch(confidence=0.5))
        [m] = (await journal.list_mutations(db, agent, target_id=node_id, limit=1))[0]
        update_undos.append(await timed(lambda m=m: undo.undo(agent, m)))
        await service.delete(agent, node_id)
        [m] = (await journal.list_mutations(db, agent, target_id=node_id, limit=1))[0]
        delete_undos.append(await timed(lambda m=m: undo.undo(agent, m)))
    figures["undo_update_ms"] = summary_ms(update_undos)
    figures["undo_delete_ms"] = summary_ms(delete_undos)
    [embed_alone] = [await timed(lambda: embedder.embed(["topic 1 w1x2 w1x3\n" + "w1x4 " * 30]))]
    figures["embed_one_note_ms"] = round(embed_alone * 1000, 2)
    return figures


async def agent_key(settings: Settings, user: str) -> str:
    """An agent's key (agents make most batch creates, and pay the correction checks)."""
    db = Database.from_settings(settings)
    try:
        _, secret = await ApiKeys(db).create(user, Role.AGENT, agent_id="bench")
        return secret
    finally:
        await db.close()


@contextmanager
def api_in_process(settings: Settings) -> Iterator[str]:
    """The real API (uvicorn, HTTP on a free port) served by a thread of this process, so
    ``journal_off`` reaches it; yields its base URL."""
    server = uvicorn.Server(
        uvicorn.Config(create_app(settings), host="127.0.0.1", port=free_port(), log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 120
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the API did not start")
        time.sleep(0.1)
    try:
        yield f"http://127.0.0.1:{server.config.port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def api_batches(settings: Settings, rounds: int) -> dict[str, Any]:
    """``POST /v1/knowledge/batch`` (1,000 notes with vectors, dedupe off) with the journal
    on and off, alternating, timed by the API itself (``Server-Timing``: from the request
    to the answer, JSON included) and by the client."""
    secret = asyncio.run(agent_key(settings, "bench-journal-api"))
    corpus = Corpus()
    server: dict[str, list[float]] = {"on": [], "off": []}
    client_side: dict[str, list[float]] = {"on": [], "off": []}
    with (
        api_in_process(settings) as url,
        httpx.Client(base_url=url, headers={"Authorization": f"Bearer {secret}"}, timeout=300) as client,
    ):
        for r in range(rounds + 1):  # the first round warms both sides up
            for side in ("on", "off") if r % 2 == 0 else ("off", "on"):
                notes = batch_of(corpus, f"api-{side}-", r * BATCH, BATCH)
                items = [
                    {"id": n.id, "title": n.title, "content": n.content, "type": n.type.value,
                     "source": n.source.value, "embedding": n.embedding, "dedupe": False}
                    for n in notes
                ]  # fmt: skip
                body = json.dumps({"items": items}).encode()
                with journal_off() if side == "off" else nullcontext():
                    started = time.perf_counter()
                    answer = client.post(
                        "/v1/knowledge/batch", content=body, headers={"Content-Type": "application/json"}
                    )
                    spent = time.perf_counter() - started
                answer.raise_for_status()
                if r:
                    server[side].append(server_seconds(answer))
                    client_side[side].append(spent)
    rate = {side: rounds * BATCH / sum(seconds) for side, seconds in server.items()}
    paired = sorted(off / on for on, off in zip(server["on"], server["off"], strict=True))
    return {
        "notes_per_s_server_side": {side: round(v) for side, v in rate.items()},
        "notes_per_s_client_side": {
            side: round(rounds * BATCH / sum(seconds)) for side, seconds in client_side.items()
        },
        "ratio": round(rate["on"] / rate["off"], 3),
        "ratio_paired": {
            "median": round(statistics.median(paired), 3),
            "p25": round(percentile(paired, 25), 3),
            "p75": round(percentile(paired, 75), 3),
        },
    }


def build_embedder_for_bench() -> Any:
    return build_embedder(Settings())


def main(quick: bool = False) -> dict[str, Any]:
    rounds, singles, undos = (4, 40, 10) if quick else (30, 300, 60)
    with private_neo4j("ctxnet-bench-journal-") as (settings, _, local):
        local.start()

        async def go() -> dict[str, Any]:
            db = Database.from_settings(settings)
            try:
                await migrate(db, 384)
                return await run(db, rounds, singles, undos)
            finally:
                await db.close()

        figures = asyncio.run(go())
        figures["api_batch_create"] = api_batches(settings, rounds)
    print(json.dumps(figures, indent=2))
    if quick:
        return figures
    path = save("journal", figures)
    print(f"journal figures on {machine()['cpu']} ({machine()['cores']} cores) -> {path}")
    return figures


if __name__ == "__main__":
    main(quick=sys.argv[1:] == ["quick"])
