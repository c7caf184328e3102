"""Context-bridge figures: how long a session's warm start takes on a busy database.

On a private Neo4j with the API in its own process, one user works with agent `assistant`:
1,000 ended sessions (summary, decisions, topics, one pending action each, 800 of them
since acknowledged: 200 open), 300 English notes and 20 conversation threads of their own
(insights extracted), a profile, and 50,000 synthetic notes; five other users hold 10,000
notes each and one of them 300 sessions of its own. 100,000 notes in all.

Measured, server-side (the API's ``Server-Timing``):

* ``POST /v1/context/bridge`` with an opening topic (embedded by the local model, notes and
  insights searched) at the agent's budget (2,000 tokens: the 200 open items do not all
  fit) and at 16,000 tokens (everything fits); and without a topic;
* ``POST /v1/sessions`` (a start, which assembles the bridge);

side by side with the floor a user would build by hand, in this process: the local
embedder alone on the same topic, then the bridge's own three Cypher statements (sessions,
pending actions and profile; the hybrid note search; insight recall) run raw through the
driver one after the other. Sides take turns request by request. Measured once the loads'
background work is done, and again after a restart of Neo4j (which merges the vector
index's segments, as on a server that has run a while).
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from typing import Any

import httpx
from neo4j import GraphDatabase

from bench.common import machine, private_neo4j, save, summary_ms
from bench.corpus import (
    Corpus,
    post_batch,
    rotated,
    search_1_params,
    server_seconds,
    settle,
    vector_segments,
)
from graph.continuity.agents import BridgeConfig
from graph.continuity.bridge import MAX_PENDING
from graph.core.cypher import cypher_text
from graph.core.db import Database
from graph.core.embeddings import build_embedder
from graph.core.principals import ApiKeys, Role
from graph.core.settings import Settings
from graph.core.vectors import VectorPlanConfig
from graph.knowledge.search import keyword_params
from tests.support.servers import ApiProcess

USER = "bench-bridge-user"
AGENT = "assistant"
OTHERS = 5
RUNS = 200


@dataclass(frozen=True)
class Size:
    """How much the user and the others hold (``QUICK`` tries the script in a minute)."""

    sessions: int = 1_000
    open_pending: int = 200
    own_synthetic: int = 50_000
    other_notes: int = 10_000
    other_sessions: int = 300


FULL = Size()
QUICK = Size(sessions=100, open_pending=20, own_synthetic=5_000, other_notes=1_000, other_sessions=30)

SYSTEMS = [
    "checkout cache", "billing service", "deploy pipeline", "search index", "auth tokens",
    "payment gateway", "mobile app", "data warehouse", "on-call rota", "API gateway",
    "feature flags", "email service", "Postgres replica", "Kafka cluster", "CDN",
]  # fmt: skip
FACTS = [
    "runs in three regions with one primary", "was migrated to Kubernetes in the spring",
    "keeps entries for thirty minutes", "alerts the on-call engineer after five failed checks",
    "is owned by the platform team", "is load tested every Friday before a release",
    "falls back to a read replica when the primary is slow", "has a p95 budget of 200 ms",
    "stores secrets in the vault, never in the repository", "is versioned with semantic versions",
    "costs about four thousand dollars a month", "logs every request with a trace id",
    "needs a database migration before the next deploy", "was rewritten from Ruby to Go",
    "is tuned by the performance guild each quarter", "rotates its keys every ninety days",
    "depends on the shared Redis cluster", "is scheduled for deprecation next year",
    "has a runbook in the wiki", "limits each client to a hundred requests a minute",
]  # fmt: skip
TOPICS = [f"How should we change the {s}?" for s in SYSTEMS] + [
    "What did we decide about caching?", "Plan the next release", "Why are deploys slow?",
    "Review the billing incident", "Reduce cloud costs",
]  # fmt: skip
PREFERENCES = [
    "I prefer short answers with code first.", "I prefer metric units.", "I like dark mode everywhere.",
    "I want every plan as a numbered list.", "I prefer Postgres over MySQL.",
]  # fmt: skip


async def keys(settings: Settings) -> dict[str, str]:
    db = Database.from_settings(settings)
    try:
        await db.wait_until_reachable(60)
        made = {"user": (await ApiKeys(db).create(USER, Role.AGENT, agent_id=AGENT))[1]}
        made["person"] = (await ApiKeys(db).create(USER, Role.HUMAN))[1]
        for n in range(OTHERS):
            made[f"other{n}"] = (await ApiKeys(db).create(f"bench-other-{n}", Role.AGENT, agent_id=AGENT))[1]
        return made
    finally:
        await db.close()


def load_notes(api: ApiProcess, secrets: dict[str, str], corpus: Corpus, size: Size) -> dict[str, Any]:
    """100,000 synthetic notes (precomputed vectors) and 300 English ones (embedded by the API)."""
    t0 = time.perf_counter()
    plan = [("user", size.own_synthetic)] + [(f"other{n}", size.other_notes) for n in range(OTHERS)]
    for who, count in plan:
        with httpx.Client(base_url=api.base_url, headers=_auth(secrets[who]), timeout=300) as client:
            vectors, topics = corpus.notes(count)
            for start in range(0, count, 1_000):
                chunk = slice(start, start + 1_000)
                post_batch(client, corpus.items(f"{who}-", vectors[chunk], topics[chunk], start))
    english = [
        {
            "title": f"{system}: {fact[:40]}",
            "content": f"The {system} {fact}.",
            "type": "fact",
            "dedupe": False,
        }
        for system in SYSTEMS
        for fact in FACTS
    ]
    with httpx.Client(base_url=api.base_url, headers=_auth(secrets["user"]), timeout=300) as client:
        for start in range(0, len(english), 50):
            client.post("/v1/knowledge/batch", json={"items": english[start : start + 50]}).raise_for_status()
    total = size.own_synthetic + OTHERS * size.other_notes + len(english)
    return {"notes": total, "seconds": round(time.perf_counter() - t0)}


def _auth(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


async def load_continuity(api: ApiProcess, secrets: dict[str, str], size: Size) -> dict[str, Any]:
    """Threads with insights, a profile, 1,000 sessions (200 pending actions left open), and
    300 sessions of another user."""
    t0 = time.perf_counter()
    async with (
        httpx.AsyncClient(base_url=api.base_url, headers=_auth(secrets["user"]), timeout=120) as http,
        httpx.AsyncClient(base_url=api.base_url, headers=_auth(secrets["other0"]), timeout=120) as other,
    ):
        for n in range(20):
            thread = f"thread-{n}"
            (
                await http.post("/v1/threads", json={"id": thread, "topic": SYSTEMS[n % len(SYSTEMS)]})
            ).raise_for_status()
            system = SYSTEMS[n % len(SYSTEMS)]
            said = [
                {"role": "user", "content": PREFERENCES[n % len(PREFERENCES)]},
                {"role": "user", "content": f"We decided to move the {system} to the new cluster."},
                {"role": "assistant", "content": "Noted; I will prepare the migration plan."},
            ]
            (await http.post(f"/v1/threads/{thread}/messages", json={"messages": said})).raise_for_status()
            job = (await http.post(f"/v1/threads/{thread}/extract")).json()["jobId"]
            for _ in range(600):
                if (await http.get(f"/v1/jobs/{job}")).json()["status"] in ("done", "failed"):
                    break
                await asyncio.sleep(0.05)
        profile = {
            "preferences": {f"preference {i}": f"value {i}" for i in range(10)},
            "background": "Staff engineer on the platform team; owns deploys and the checkout cache.",
        }
        (await http.put("/v1/profile", json=profile)).raise_for_status()

        pending: list[str] = []

        async def one(client: httpx.AsyncClient, n: int, keep: list[str] | None) -> None:
            started = (await client.post("/v1/sessions", json={})).json()["session"]["id"]
            system = SYSTEMS[n % len(SYSTEMS)]
            end = {
                "summary": f"We reviewed the {system} and agreed on the next step for session {n}. "
                f"The user asked for a written plan before any change.",
                "topics": [system, "planning"],
                "keyDecisions": [f"Keep the {system} as it is until the load test of week {n % 52}"],
                "pendingActions": [f"Write the {system} plan number {n}"],
                "messageCount": 12,
            }
            ended = await client.post(f"/v1/sessions/{started}/end", json=end)
            ended.raise_for_status()
            if keep is not None:
                keep.extend(p["id"] for p in ended.json()["pendingActions"])

        for start in range(0, size.sessions, 10):
            await asyncio.gather(*(one(http, n, pending) for n in range(start, start + 10)))
        for start in range(0, size.other_sessions, 10):
            await asyncio.gather(*(one(other, n, None) for n in range(start, start + 10)))
        done = pending[: size.sessions - size.open_pending]  # the oldest cleared, the newest stay open
        for start in range(0, len(done), 10):
            acks = [
                http.post(f"/v1/pending-actions/{a}/ack", json={"resolution": "Done."})
                for a in done[start : start + 10]
            ]
            answers = await asyncio.gather(*acks)
            for answer in answers:
                answer.raise_for_status()
        open_now = (await http.get("/v1/pending-actions", params={"limit": 1000})).json()["items"]
        assert len(open_now) == size.open_pending, len(open_now)
    seconds = round(time.perf_counter() - t0)
    return {"sessions": size.sessions, "open_pending": size.open_pending, "seconds": seconds}


def measure(api: ApiProcess, settings: Settings, secrets: dict[str, str], runs: int = RUNS) -> dict[str, Any]:
    """Server-side bridge times, and the hand-built floor, taking turns."""
    embedder = build_embedder(Settings(embedding_threads=1))
    plan = VectorPlanConfig.from_settings(Settings())
    context_query = cypher_text("queries/continuity/bridge_context")
    search_query = cypher_text("queries/knowledge/search_0")
    recall_query = cypher_text("queries/conversations/insights_recall_exact")
    auth = (settings.neo4j_user, settings.resolved_neo4j_password() or "")
    timings: dict[str, list[float]] = {
        k: [] for k in ("topic", "topic_16k", "no_topic", "start", "embed", "raw")
    }
    shapes: dict[str, Any] = {}
    parts: dict[str, list[float]] = {}
    with (
        GraphDatabase.driver(
            settings.resolved_neo4j_uri, auth=auth, notifications_disabled_classifications=["UNRECOGNIZED"]
        ) as driver,
        httpx.Client(base_url=api.base_url, headers=_auth(secrets["user"]), timeout=60) as client,
    ):
        [mine_total] = driver.execute_query(
            "MATCH (n:Knowledge) RETURN count(n) AS total, count(CASE WHEN n.userId = $u THEN 1 END) AS mine",
            u=USER,
        ).records
        # What the API passes the search (its pool, the plan's candidates), and the agent's
        # bridge settings (the defaults: it is not in an agents file).
        candidates = plan.index_candidates(
            search_1_params(USER)["pool"], mine_total["mine"], mine_total["total"]
        )
        bridge_config = BridgeConfig()
        memory = bridge_config.memory_matches

        def bridge(topic: str | None, budget: int | None = None) -> float:
            body: dict[str, Any] = {"topic": topic} if topic else {}
            if budget:
                body["tokenBudget"] = budget
            response = client.post("/v1/context/bridge", json=body)
            response.raise_for_status()
            key = "topic_16k" if budget else "topic" if topic else "no_topic"
            answer = response.json()
            shape = {
                k: len(v) if isinstance(v, list) else v is not None for k, v in answer["sections"].items()
            }
            shapes.setdefault(key, {**shape, "tokens": answer["tokens"], "dropped": len(answer["dropped"])})
            return server_seconds(response)

        def start(topic: str) -> float:
            response = client.post("/v1/sessions", json={"topic": topic})
            response.raise_for_status()
            return server_seconds(response)

        def floor(topic: str) -> tuple[float, float]:
            t0 = time.perf_counter()
            [vector] = asyncio.run(embedder.embed([topic]))
            t1 = time.perf_counter()
            driver.execute_query(
                context_query,
                userId=USER,
                agentId=AGENT,
                recentSessions=bridge_config.recent_sessions,
                maxPending=MAX_PENDING,
                includeProfile=True,
            )
            t2 = time.perf_counter()
            driver.execute_query(
                search_query, vector=vector, **keyword_params(topic, USER, mine_total["mine"]),
                **{**search_1_params(USER), "topK": memory, "candidates": candidates},
            )  # fmt: skip
            t3 = time.perf_counter()
            driver.execute_query(recall_query, userId=USER, vector=vector, limit=memory)
            t4 = time.perf_counter()
            for part, spent in (("raw_context", t2 - t1), ("raw_search", t3 - t2), ("raw_recall", t4 - t3)):
                parts.setdefault(part, []).append(spent)
            return t1 - t0, t4 - t1

        for n in range(runs + 20):
            topic = TOPICS[n % len(TOPICS)]
            for side in rotated(["topic", "topic_16k", "no_topic", "start", "floor"], n):
                if side == "topic":
                    spent = bridge(topic)
                elif side == "topic_16k":
                    spent = bridge(topic, 16_000)
                elif side == "no_topic":
                    spent = bridge(None)
                elif side == "start":
                    spent = start(topic)
                else:
                    embed, raw = floor(topic)
                    if n >= 20:
                        timings["embed"].append(embed)
                        timings["raw"].append(raw)
                    continue
                if n >= 20:
                    timings[side].append(spent)
    floor_total = [e + r for e, r in zip(timings["embed"], timings["raw"], strict=True)]
    figures = {
        "bridge_with_topic_2k_budget": summary_ms(timings["topic"]),
        "bridge_with_topic_16k_budget": summary_ms(timings["topic_16k"]),
        "bridge_without_topic": summary_ms(timings["no_topic"]),
        "session_start_with_bridge": summary_ms(timings["start"]),
        "floor_embedder_alone": summary_ms(timings["embed"]),
        "floor_raw_cypher": summary_ms(timings["raw"]),
        "floor_total": summary_ms(floor_total),
        **{f"floor_{part}": summary_ms(spent[20:]) for part, spent in parts.items()},
        "shapes": shapes,
    }
    figures["bridge_over_floor_p50"] = round(
        figures["bridge_with_topic_2k_budget"]["p50_ms"] / figures["floor_total"]["p50_ms"], 2
    )
    return figures


def main(size: Size = FULL) -> dict[str, Any]:
    """Run on a private Neo4j and save the figures (``QUICK`` ones are not saved)."""
    figures: dict[str, Any] = {}
    with private_neo4j("ctxnet-bench-bridge-") as (settings, env, local):
        local.start()
        api = ApiProcess(settings.data_dir / "api.log", env).start()
        try:
            api.wait_ready()
            secrets = asyncio.run(keys(settings))
            figures["load_notes"] = load_notes(api, secrets, Corpus(), size)
            print("notes:", figures["load_notes"], flush=True)
            figures["load_continuity"] = asyncio.run(load_continuity(api, secrets, size))
            print("continuity:", figures["load_continuity"], flush=True)
            figures["settled_s"] = settle(local)
            figures["after_loading"] = measure(api, settings, secrets)
            # Neo4j merges an index's segments when it closes it: after a restart the notes sit
            # in one HNSW graph, as on a server that has run a while (see bench/knowledge.py).
            local.stop()
            local.start()
            api.wait_ready()
            figures["vector_segments_after_restart"] = vector_segments(local)
            measure(api, settings, secrets, runs=40)  # the JVM's warm-up after a start
            figures["after_restart"] = measure(api, settings, secrets)
        finally:
            api.stop()
    print(json.dumps(figures, indent=2))
    if size != FULL:
        return figures
    path = save("continuity", figures)
    print(f"continuity figures on {machine()['cpu']} ({machine()['cores']} cores) -> {path}")
    return figures


if __name__ == "__main__":
    import sys

    main(QUICK if sys.argv[1:] == ["quick"] else FULL)
