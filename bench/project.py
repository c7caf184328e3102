"""Project context figures: self-docs and instructions with 1,000 decisions, recording a
decision against 10,000 threads, and unified search over 100k notes, 100k insights and 1k
decisions.

On a private Neo4j with the API in its own process, one user holds 100,000 notes (synthetic,
with precomputed vectors, through the API's batch create), 1,000 architecture decisions
(recorded through the API, real text embedded by it), agents' docs (5 agents, 10
capabilities and 3 constraints each), 10,000 threads active this month with 10 insights each
(100,000 insights; topic and insight vectors precomputed, written by Cypher as the extraction
pipeline stores them), of which 20 are about the storage decisions the benchmark records.
Another user holds 20,000 notes and 10,000 insights beside.

Measured server-side (the API's ``Server-Timing``), the sides taking turns request by request:

* ``GET /v1/agents/{id}/self-docs?query=`` beside the embedder alone on the query plus its
  statement raw through the driver;
* ``GET /v1/agents/{id}/instructions`` (every decision affects the agent; a 2,000-token
  budget) beside its statement raw;
* ``POST /v1/decisions`` (a new decision each time, announced in the 20 storage threads)
  beside the statement that finds the affected threads, raw;
* ``POST /v1/search/unified`` (all three layers, top 10) beside the two calls an agent would
  otherwise make, ``POST /v1/search`` (hybrid, no expansion) and ``POST /v1/context/user``
  (insight recall), their server times summed.

Run with ``python -m bench.project`` (``quick`` for a small run that is not saved).
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from typing import Any

import httpx
import numpy as np
from neo4j import GraphDatabase

from bench.common import machine, private_neo4j, save, summary_ms
from bench.continuity import _auth
from bench.corpus import Corpus, post_batch, rotated, server_seconds, settle
from graph.core.cypher import cypher_text
from graph.core.db import Database
from graph.core.embeddings import build_embedder
from graph.core.principals import ApiKeys, Role
from graph.core.settings import Settings
from graph.core.tenancy import tenant_key
from graph.project.affected import SCAN_INSIGHTS, SCAN_THREADS
from graph.project.agent_docs import MAX_DECISION_CHARS, MAX_DECISIONS
from tests.support.servers import ApiProcess, running_api

USER = "bench-project-user"
OTHER = "bench-project-other"
AGENTS = [f"agent-{n}" for n in range(5)]
RUNS = 200
WARMUP = 20
STORAGE = "Where and how the service stores its orders and customer records"
QUESTIONS = [
    "how do I change the database schema",
    "which queue do services publish events to",
    "may I call external APIs from tests",
    "how are secrets handled",
    "what is the retry policy for HTTP calls",
]
AREAS = ["storage", "queues", "testing", "security", "networking", "observability", "deployment", "caching"]


@dataclass(frozen=True)
class Size:
    """How much the user holds (``QUICK`` tries the script in minutes)."""

    notes: int = 100_000
    decisions: int = 1_000
    threads: int = 10_000
    insights_per_thread: int = 10
    other_notes: int = 20_000
    other_insights: int = 10_000


FULL = Size()
QUICK = Size(notes=5_000, decisions=100, threads=1_000, other_notes=1_000, other_insights=1_000)


async def keys(settings: Settings) -> dict[str, str]:
    db = Database.from_settings(settings)
    try:
        await db.wait_until_reachable(60)
        return {
            "person": (await ApiKeys(db).create(USER, Role.HUMAN))[1],
            "agent": (await ApiKeys(db).create(USER, Role.AGENT, agent_id=AGENTS[0]))[1],
            "other": (await ApiKeys(db).create(OTHER, Role.HUMAN))[1],
        }
    finally:
        await db.close()


def decision(n: int) -> dict[str, Any]:
    """The n-th synthetic decision: real words, one of eight areas."""
    area = AREAS[n % len(AREAS)]
    return {
        "id": f"adr-{n:05d}",
        "title": f"Decision {n} on {area}",
        "context": f"The {area} of service {n % 97} needed a rule.",
        "decision": f"Service {n % 97} follows rule {n} for its {area}: reviewed, documented, tested.",
        "consequences": [f"Every change to {area} of service {n % 97} is checked against rule {n}."],
        "date": f"2026-{1 + n % 11:02d}-{1 + n % 28:02d}",
    }


def load(api: ApiProcess, settings: Settings, secrets: dict[str, str], size: Size) -> dict[str, Any]:
    """Notes and decisions through the API; threads and insights by Cypher; agents' docs."""
    t0 = time.perf_counter()
    corpus = Corpus()
    for who, count in (("person", size.notes), ("other", size.other_notes)):
        with httpx.Client(base_url=api.base_url, headers=_auth(secrets[who]), timeout=300) as client:
            vectors, topics = corpus.notes(count)
            for start in range(0, count, 1_000):
                chunk = slice(start, start + 1_000)
                post_batch(client, corpus.items(f"{who}-", vectors[chunk], topics[chunk], start))
    notes_s = time.perf_counter() - t0
    with httpx.Client(base_url=api.base_url, headers=_auth(secrets["person"]), timeout=300) as client:
        t1 = time.perf_counter()
        for n in range(size.decisions):
            client.post("/v1/decisions", json=decision(n)).raise_for_status()
        decisions_s = time.perf_counter() - t1
        for agent in AGENTS:
            docs = {
                "capabilities": [
                    f"Handle {area} work for {agent}, step {k}." for k, area in enumerate(AREAS + AREAS[:2])
                ],
                "constraints": [f"{agent} never touches production {area}." for area in AREAS[:3]],
                "baseInstructions": f"You are {agent}.",
            }
            client.put(f"/v1/agents/{agent}/docs", json=docs).raise_for_status()
    embedder = build_embedder(Settings(embedding_threads=1))
    [storage] = asyncio.run(embedder.embed([STORAGE]))
    auth = (settings.neo4j_user, settings.resolved_neo4j_password() or "")
    with GraphDatabase.driver(settings.resolved_neo4j_uri, auth=auth) as driver:
        t2 = time.perf_counter()
        for user, threads, per_thread in (
            (USER, size.threads, size.insights_per_thread),
            (OTHER, size.other_insights // 10, 10),
        ):
            vectors, _ = corpus.notes(threads)
            topics = [
                (STORAGE, np.asarray(storage)) if user == USER and i < 20 else (f"thread {i}", vectors[i])
                for i in range(threads)
            ]
            load_threads(driver, corpus, user, topics, per_thread, embedder.model_id)
        threads_s = time.perf_counter() - t2
    return {
        "notes": size.notes, "decisions": size.decisions, "threads": size.threads,
        "insights": size.threads * size.insights_per_thread, "other_notes": size.other_notes,
        "other_insights": size.other_insights, "notes_s": round(notes_s),
        "decisions_per_s": round(size.decisions / decisions_s, 1), "threads_s": round(threads_s),
    }  # fmt: skip


#: Threads with their insights as the service stores them (topic vector, tenant key).
LOAD_THREADS = """
UNWIND $rows AS row
CREATE (t:Thread {userId: $userId, id: row.id, contextType: 'general', topic: row.topic,
                  messageCount: 0, createdAt: datetime(), updatedAt: datetime(), embeddingModel: $model})
WITH t, row
CALL db.create.setNodeVectorProperty(t, 'embedding', row.embedding)
WITH t, row
UNWIND row.insights AS insight
CREATE (i:Insight {userId: $userId, id: insight.id, key: insight.key, threadId: row.id, type: 'fact',
                   content: 'insight ' + insight.id, confidence: 0.9, extractor: 'bench',
                   extractedAt: datetime(), embeddingModel: $model, tenantKey: $tenantKey})
CREATE (t)-[:HAS_INSIGHT]->(i)
WITH i, insight
CALL db.create.setNodeVectorProperty(i, 'embedding', insight.embedding)
"""


def load_threads(
    driver: Any, corpus: Corpus, user: str, topics: list[tuple[str, Any]], per_thread: int, model: str
) -> None:
    """Threads ``t-<i>`` of ``user`` written straight into the database (:data:`LOAD_THREADS`,
    500 a statement), each with its topic's text and vector and ``per_thread`` insights whose
    vectors ``corpus`` draws, thread by thread."""
    for start in range(0, len(topics), 500):
        rows = []
        for i in range(start, min(start + 500, len(topics))):
            text, vector = topics[i]
            insights, _ = corpus.notes(per_thread)
            rows.append({
                "id": f"t-{i}", "topic": text, "embedding": [float(x) for x in vector],
                "insights": [
                    {"id": f"i-{i}-{k}", "key": f"t-{i}:{k}", "embedding": insights[k].tolist()}
                    for k in range(per_thread)
                ],
            })  # fmt: skip
        driver.execute_query(LOAD_THREADS, rows=rows, userId=user, tenantKey=tenant_key(user), model=model)


def measure(
    api: ApiProcess, settings: Settings, secrets: dict[str, str], size: Size, runs: int = RUNS
) -> dict[str, Any]:
    """Server-side times of the four calls and their alternatives, taking turns."""
    embedder = build_embedder(Settings(embedding_threads=1))
    self_docs_query = cypher_text("queries/project/self_docs")
    instructions_query = cypher_text("queries/project/instructions_decisions")
    threads_query = cypher_text("queries/project/decision_threads")
    auth = (settings.neo4j_user, settings.resolved_neo4j_password() or "")
    sides = (
        "self_docs", "embed", "self_docs_raw", "instructions", "instructions_raw", "record", "threads_raw",
        "unified", "search", "recall",
    )  # fmt: skip
    timings: dict[str, list[float]] = {k: [] for k in sides}
    shapes: dict[str, Any] = {}
    with (
        GraphDatabase.driver(
            settings.resolved_neo4j_uri, auth=auth, notifications_disabled_classifications=["UNRECOGNIZED"]
        ) as driver,
        httpx.Client(base_url=api.base_url, headers=_auth(secrets["person"]), timeout=60) as client,
    ):

        def timed(method: str, path: str, **kwargs: Any) -> tuple[float, Any]:
            response = client.request(method, path, **kwargs)
            response.raise_for_status()
            return server_seconds(response), response.json()

        def raw(query: str, **params: Any) -> float:
            t0 = time.perf_counter()
            driver.execute_query(query, **params)
            return time.perf_counter() - t0

        recorded = 0
        for n in range(runs + WARMUP):
            question = QUESTIONS[n % len(QUESTIONS)]
            agent = AGENTS[n % len(AGENTS)]
            spent: dict[str, float] = {}
            for side in rotated(list(sides), n):
                if side == "self_docs":
                    spent[side], answer = timed(
                        "GET", f"/v1/agents/{agent}/self-docs", params={"query": question, "topK": 5}
                    )
                    shapes.setdefault(
                        "self_docs", {k: len(v) for k, v in answer.items() if isinstance(v, list)}
                    )
                elif side == "embed":
                    t0 = time.perf_counter()
                    [vector] = asyncio.run(embedder.embed([question]))
                    spent[side] = time.perf_counter() - t0
                elif side == "self_docs_raw":
                    [vector] = asyncio.run(embedder.embed([question]))
                    spent[side] = raw(self_docs_query, userId=USER, agentId=agent, vector=vector, limit=5)
                elif side == "instructions":
                    spent[side], answer = timed("GET", f"/v1/agents/{agent}/instructions")
                    shapes.setdefault(
                        "instructions",
                        {
                            "decisions": len(answer["decisions"]),
                            "dropped": len(answer["dropped"]),
                            "tokens": answer["tokens"],
                        },
                    )
                elif side == "instructions_raw":
                    spent[side] = raw(
                        instructions_query, userId=USER, agentId=agent, limit=MAX_DECISIONS,
                        maxChars=MAX_DECISION_CHARS,
                    )  # fmt: skip
                elif side == "record":
                    body = decision(size.decisions + recorded) | {
                        "title": f"Orders storage rule {recorded}",
                        "decision": f"Orders and customer records are stored in PostgreSQL, rule {recorded}.",
                    }
                    recorded += 1
                    spent[side], answer = timed("POST", "/v1/decisions", json=body)
                    shapes.setdefault(
                        "record",
                        {
                            "notified": len(answer["notifiedThreads"]),
                            "agents": len(answer["refreshedAgents"]),
                        },
                    )
                elif side == "threads_raw":
                    about, why = asyncio.run(
                        embedder.embed([
                            f"Orders storage rule {n}\nOrders are stored in PostgreSQL.\nWe need to choose.",
                            f"Orders storage rule {n}\nWe need to choose.",
                        ])
                    )  # fmt: skip
                    t0 = time.perf_counter()  # as the service runs it: every recent thread, exactly
                    driver.execute_query(
                        threads_query, userId=USER, about=about, why=why, windowSeconds=30 * 86_400,
                        scan=SCAN_THREADS, insights=SCAN_INSIGHTS, agents=[], parts=[], notifyModel=None,
                        second=[],
                    )  # fmt: skip
                    spent[side] = time.perf_counter() - t0
                elif side == "unified":
                    spent[side], answer = timed(
                        "POST", "/v1/search/unified", json={"query": question, "topK": 10}
                    )
                    shapes.setdefault("unified", sorted({r["layer"] for r in answer["results"]}))
                elif side == "search":
                    spent[side], _ = timed(
                        "POST", "/v1/search",
                        json={"query": question, "topK": 10, "mode": "hybrid", "expandConnections": False},
                    )  # fmt: skip
                elif side == "recall":
                    spent[side], _ = timed("POST", "/v1/context/user", json={"query": question})
            if n >= WARMUP:
                for side, seconds in spent.items():
                    timings[side].append(seconds)
    figures: dict[str, Any] = {side: summary_ms(samples) for side, samples in timings.items()}
    figures["unified_over_search_and_recall_p50"] = round(
        figures["unified"]["p50_ms"] / (figures["search"]["p50_ms"] + figures["recall"]["p50_ms"]), 2
    )
    figures["self_docs_over_embed_and_raw_p50"] = round(
        figures["self_docs"]["p50_ms"] / (figures["embed"]["p50_ms"] + figures["self_docs_raw"]["p50_ms"]), 2
    )
    figures["instructions_over_raw_p50"] = round(
        figures["instructions"]["p50_ms"] / figures["instructions_raw"]["p50_ms"], 2
    )
    figures["shapes"] = shapes
    return figures


def main(size: Size = FULL) -> dict[str, Any]:
    """Run on a private Neo4j and save the figures (``QUICK`` ones are not saved)."""
    figures: dict[str, Any] = {}
    with private_neo4j("ctxnet-bench-project-") as (settings, env, local):
        local.start()
        with running_api(settings.data_dir / "api.log", env) as api:
            secrets = asyncio.run(keys(settings))
            figures["load"] = load(api, settings, secrets, size)
            print("loaded:", figures["load"], flush=True)
            figures["settled_s"] = settle(local)
            figures["measured"] = measure(api, settings, secrets, size)
    print(json.dumps(figures, indent=2))
    if size != FULL:
        return figures
    path = save("project", figures)
    print(f"project figures on {machine()['cpu']} ({machine()['cores']} cores) -> {path}")
    return figures


if __name__ == "__main__":
    import sys

    main(QUICK if sys.argv[1:] == ["quick"] else FULL)
