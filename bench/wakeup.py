"""Wake-up figures: orient, catch_up and brief_me on a user with a long memory.

On a private Neo4j with the API in its own process, one user holds 100,000 notes (99,700
synthetic ones with precomputed vectors, 300 English ones embedded by the API; every create
is journaled, so the journal holds over 100,000 mutations), 1,000 ended sessions of agent
`assistant` (each with a pending action; 200 of them saved as wiki pages with three
insights each), 20 goals, the starter skills and 20 more, and five corrections by a person;
five other users hold 10,000 notes each. After the agent's last saved page, the user goes on
working: 300 notes updated, 20 sessions of another agent (saved), 5 goals set: what the
next catch_up reports.

Measured server-side (the API's ``Server-Timing``), taking turns request by request:

* ``POST /v1/orient {goal}`` in a fresh session, side by side with the chain of list calls
  it replaces (goals, unacknowledged corrections, the last 50 mutations, the agent's last
  session, open pending actions, skills, readiness: the sum of their server times) and with
  its own Cypher statement run raw through the driver (the floor);
* ``POST /v1/catch-up`` at its default cutoff (the agent's last saved page), beside its raw
  statement; and with an explicit cutoff before everything (the worst case: every note and
  every mutation is news);
* ``POST /v1/brief`` at a 2,000-token budget, beside the local embedder alone on the task
  and the three statements it runs (the note search, insight recall, pages) raw.

Run with ``python -m bench.wakeup`` (``quick`` for a small run that is not saved).
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
from bench.continuity import FACTS, SYSTEMS, TOPICS, _auth
from bench.corpus import (
    Corpus,
    post_batch,
    rotated,
    search_1_params,
    server_seconds,
    settle,
)
from graph.continuity.skills import starter_skills
from graph.core.cypher import cypher_text
from graph.core.db import Database
from graph.core.embeddings import build_embedder, relevance_floor
from graph.core.principals import ApiKeys, Role
from graph.core.settings import Settings
from graph.core.vectors import VectorPlanConfig
from graph.knowledge.search import keyword_params
from tests.support.servers import ApiProcess

USER = "bench-wake-user"
AGENT = "assistant"
OTHERS = 5
RUNS = 200
WARMUP = 20


@dataclass(frozen=True)
class Size:
    """How much the user and the others hold (``QUICK`` tries the script in minutes)."""

    synthetic: int = 99_700
    other_notes: int = 10_000
    sessions: int = 1_000
    saved: int = 200
    changed_after: int = 300


FULL = Size()
QUICK = Size(synthetic=4_700, other_notes=1_000, sessions=100, saved=20, changed_after=50)


async def keys(settings: Settings) -> dict[str, str]:
    db = Database.from_settings(settings)
    try:
        await db.wait_until_reachable(60)
        made = {"agent": (await ApiKeys(db).create(USER, Role.AGENT, agent_id=AGENT))[1]}
        made["person"] = (await ApiKeys(db).create(USER, Role.HUMAN))[1]
        made["writer"] = (await ApiKeys(db).create(USER, Role.AGENT, agent_id="writer"))[1]
        for n in range(OTHERS):
            made[f"other{n}"] = (
                await ApiKeys(db).create(f"bench-wake-other-{n}", Role.AGENT, agent_id=AGENT)
            )[1]
        return made
    finally:
        await db.close()


def load_notes(api: ApiProcess, secrets: dict[str, str], size: Size) -> dict[str, Any]:
    """The user's 100,000 notes and the others' 50,000."""
    t0 = time.perf_counter()
    corpus = Corpus()
    for who, count in [("agent", size.synthetic)] + [(f"other{n}", size.other_notes) for n in range(OTHERS)]:
        with httpx.Client(base_url=api.base_url, headers=_auth(secrets[who]), timeout=300) as client:
            vectors, topics = corpus.notes(count)
            for start in range(0, count, 1_000):
                chunk = slice(start, start + 1_000)
                post_batch(client, corpus.items(f"{who}-", vectors[chunk], topics[chunk], start))
    english = [
        {"id": f"fact-{i}", "title": f"{system}: {fact[:40]}", "content": f"The {system} {fact}.",
         "type": "decision" if i % 10 == 0 else "fact", "dedupe": False}
        for i, (system, fact) in enumerate((s, f) for s in SYSTEMS for f in FACTS)
    ]  # fmt: skip
    with httpx.Client(base_url=api.base_url, headers=_auth(secrets["agent"]), timeout=300) as client:
        for start in range(0, len(english), 50):
            client.post("/v1/knowledge/batch", json={"items": english[start : start + 50]}).raise_for_status()
    return {"notes": size.synthetic + len(english), "others": OTHERS * size.other_notes,
            "seconds": round(time.perf_counter() - t0)}  # fmt: skip


async def load_memory(api: ApiProcess, secrets: dict[str, str], size: Size) -> dict[str, Any]:
    """Sessions (some saved), goals, skills and corrections; then the work after the last save."""
    t0 = time.perf_counter()
    async with (
        httpx.AsyncClient(base_url=api.base_url, headers=_auth(secrets["agent"]), timeout=120) as agent,
        httpx.AsyncClient(base_url=api.base_url, headers=_auth(secrets["person"]), timeout=120) as person,
        httpx.AsyncClient(base_url=api.base_url, headers=_auth(secrets["writer"]), timeout=120) as writer,
    ):
        for starter in starter_skills():
            skill = {
                "id": starter.id, "name": starter.name, "bodyMd": starter.body_md,
                "bundle": starter.bundle, "trigger": starter.trigger, "tags": list(starter.tags),
            }  # fmt: skip
            (await person.post("/v1/skills", json=skill)).raise_for_status()
        for n, system in enumerate(SYSTEMS + SYSTEMS[:5]):
            skill = {"id": f"team:{n}", "name": f"Operate the {system}", "bodyMd": "1. Read the runbook.",
                     "bundle": "team", "tags": [system.split()[0].lower(), "operations"],
                     "trigger": f"When the {system} misbehaves."}  # fmt: skip
            (await person.post("/v1/skills", json=skill)).raise_for_status()
        for n in range(20):
            (
                await person.post("/v1/goals", json={"id": f"goal-{n}", "title": TOPICS[n % len(TOPICS)]})
            ).raise_for_status()

        async def one(client: httpx.AsyncClient, n: int, saved: bool) -> None:
            system = SYSTEMS[n % len(SYSTEMS)]
            started = (await client.post("/v1/sessions", json={"topic": f"The {system}"})).json()["session"][
                "id"
            ]
            end = {
                "summary": f"We reviewed the {system} and agreed on the next step for session {n}.",
                "topics": [system, "planning"],
                "keyDecisions": [f"Keep the {system} as it is until week {n % 52}"],
                "pendingActions": [f"Write the {system} plan number {n}"],
            }
            (await client.post(f"/v1/sessions/{started}/end", json=end)).raise_for_status()
            if saved:
                page = {
                    "summary": f"Session {n} on the {system}: plan agreed, load test next.",
                    "decisions": [f"Load test the {system} in week {n % 52}"],
                    "insights": [
                        {"type": "fact", "content": f"The {system} {FACTS[n % len(FACTS)]}."},
                        {"type": "decision", "content": f"The {system} stays as it is until week {n % 52}."},
                        {"type": "question", "content": f"Who owns the {system} runbook {n}?"},
                    ],
                }
                (await client.post(f"/v1/sessions/{started}/save", json=page)).raise_for_status()

        every = max(1, size.sessions // size.saved)
        for start in range(0, size.sessions, 10):
            await asyncio.gather(*(one(agent, n, n % every == every - 1) for n in range(start, start + 10)))
        for n in range(5):  # corrections: a person fixes what the agent wrote
            fixed = {"content": f"Corrected: the {SYSTEMS[n]} has a p99 budget of 300 ms."}
            (await person.patch(f"/v1/knowledge/fact-{n * 20 + 1}", json=fixed)).raise_for_status()
        mid = time.perf_counter()
        # The work after the agent's last saved page: what its next catch_up reports.
        for n in range(size.changed_after):
            patch = {"confidence": 0.95, "tags": ["reviewed"]}
            (await person.patch(f"/v1/knowledge/agent-{n * 7}", json=patch)).raise_for_status()
        for n in range(20):
            await one(writer, n, True)
        for n in range(5):
            (await person.post("/v1/goals", json={"title": f"Follow up {SYSTEMS[n]}"})).raise_for_status()
    return {"sessions": size.sessions, "saved": size.saved, "seconds_before": round(mid - t0),
            "seconds_after": round(time.perf_counter() - mid)}  # fmt: skip


def measure(api: ApiProcess, settings: Settings, secrets: dict[str, str], runs: int = RUNS) -> dict[str, Any]:
    """Server-side times of the three calls and their alternatives, taking turns."""
    embedder = build_embedder(Settings(embedding_threads=1))
    plan = VectorPlanConfig.from_settings(Settings())
    orient_query = cypher_text("queries/continuity/orient")
    catch_up_query = cypher_text("queries/continuity/catch_up")
    search_query = cypher_text("queries/knowledge/search_0")
    page_floor = (1 + relevance_floor(Settings())) / 2  # as brief_me asks (a score, not a cosine)
    recall_query = cypher_text("queries/conversations/insights_recall_exact")
    pages_query = cypher_text("queries/continuity/wiki_rank")
    auth = (settings.neo4j_user, settings.resolved_neo4j_password() or "")
    sides = (
        "orient",
        "chain",
        "orient_raw",
        "catch_up",
        "catch_up_raw",
        "catch_up_all",
        "brief",
        "embed",
        "brief_raw",
    )
    timings: dict[str, list[float]] = {k: [] for k in sides}
    shapes: dict[str, Any] = {}
    with (
        GraphDatabase.driver(
            settings.resolved_neo4j_uri, auth=auth, notifications_disabled_classifications=["UNRECOGNIZED"]
        ) as driver,
        httpx.Client(base_url=api.base_url, headers=_auth(secrets["agent"]), timeout=60) as client,
    ):
        session = client.post("/v1/sessions", json={"topic": "bench"}).json()["session"]["id"]
        client.headers["X-Session-ID"] = session
        [counts] = driver.execute_query(
            "MATCH (n:Knowledge) RETURN count(n) AS total, count(CASE WHEN n.userId = $u THEN 1 END) AS mine",
            u=USER,
        ).records
        candidates = plan.index_candidates(30, counts["mine"], counts["total"])
        [journal] = driver.execute_query(
            "MATCH (m:Mutation {userId: $u}) RETURN count(m) AS n", u=USER
        ).records
        shapes["notes"], shapes["mutations"] = counts["mine"], journal["n"]
        first = client.post("/v1/catch-up", json={}).json()
        shapes["catch_up"] = {
            s: first[s]["count"] for s in ("sessions", "mutations", "knowledge", "work", "wiki")
        }
        shapes["catch_up"]["tier"] = first["cutoffTier"]
        everything = "2000-01-01T00:00:00Z"

        def timed(method: str, path: str, **kwargs: Any) -> tuple[float, Any]:
            response = client.request(method, path, **kwargs)
            response.raise_for_status()
            return server_seconds(response), response.json()

        def raw(query: str, **params: Any) -> float:
            t0 = time.perf_counter()
            driver.execute_query(query, **params)
            return time.perf_counter() - t0

        common = {"userId": USER, "scope": None}
        for n in range(runs + WARMUP):
            goal = TOPICS[n % len(TOPICS)]
            spent: dict[str, float] = {}
            for side in rotated(list(sides), n):
                if side == "orient":
                    spent[side], answer = timed("POST", "/v1/orient", json={"goal": goal})
                    shapes.setdefault("orient", {k: len(v) for k, v in answer.items() if isinstance(v, list)})
                elif side == "chain":
                    spent[side] = sum(
                        timed("GET", path, params=params)[0]
                        for path, params in (
                            ("/v1/goals", {"limit": 10}),
                            ("/v1/corrections", {"unacknowledged": "true", "sessionId": session}),
                            ("/v1/mutations", {"limit": 50}),
                            ("/v1/sessions", {"agentId": AGENT, "limit": 1}),
                            ("/v1/pending-actions", {}),
                            ("/v1/skills", {}),
                        )
                    )
                elif side == "orient_raw":
                    spent[side] = raw(
                        orient_query, **common, agentId=AGENT, viewAgent=None, sessionId=session,
                        windowSeconds=7 * 86_400, hotWindow=500, hotLimit=10, goalLimit=10,
                        correctionLimit=10,
                    )  # fmt: skip
                elif side == "catch_up":
                    spent[side], _ = timed("POST", "/v1/catch-up", json={})
                elif side == "catch_up_raw":
                    spent[side] = raw(
                        catch_up_query, **common, agentId=AGENT, viewAgent=None, actor=f"agent:{AGENT}",
                        sessionId=session, since=None, focus=None, limit=5,
                    )  # fmt: skip
                elif side == "catch_up_all":
                    spent[side], _ = timed("POST", "/v1/catch-up", json={"since": everything})
                elif side == "brief":
                    spent[side], answer = timed(
                        "POST", "/v1/brief", json={"task": goal, "tokenBudget": 2_000}
                    )
                    shapes.setdefault("brief", {"tokens": answer["tokens"], "hint": answer["tokenBudgetHint"],
                                                "dropped": len(answer["dropped"])})  # fmt: skip
                elif side == "embed":
                    t0 = time.perf_counter()
                    [vector] = asyncio.run(embedder.embed([goal]))
                    spent[side] = time.perf_counter() - t0
                else:
                    [vector] = asyncio.run(embedder.embed([goal]))
                    searched = {
                        **search_1_params(USER), "topK": 15, "pool": 30, "textCandidates": 120,
                        "candidates": candidates, "vector": vector,
                        **keyword_params(goal, USER, counts["mine"]),
                    }  # fmt: skip
                    spent[side] = (
                        raw(search_query, **searched)
                        + raw(recall_query, userId=USER, vector=vector, limit=10)
                        + raw(
                            pages_query,
                            userId=USER,
                            agentId=None,
                            vector=vector,
                            minScore=page_floor,
                            limit=5,
                        )
                    )
            if n >= WARMUP:
                for side, seconds in spent.items():
                    timings[side].append(seconds)
    figures: dict[str, Any] = {side: summary_ms(samples) for side, samples in timings.items()}
    figures["orient_over_chain_p50"] = round(figures["orient"]["p50_ms"] / figures["chain"]["p50_ms"], 2)
    figures["orient_over_raw_p50"] = round(figures["orient"]["p50_ms"] / figures["orient_raw"]["p50_ms"], 2)
    figures["catch_up_over_raw_p50"] = round(
        figures["catch_up"]["p50_ms"] / figures["catch_up_raw"]["p50_ms"], 2
    )
    figures["shapes"] = shapes
    return figures


def main(size: Size = FULL) -> dict[str, Any]:
    """Run on a private Neo4j and save the figures (``QUICK`` ones are not saved)."""
    figures: dict[str, Any] = {}
    with private_neo4j("ctxnet-bench-wakeup-") as (settings, env, local):
        local.start()
        api = ApiProcess(settings.data_dir / "api.log", env).start()
        try:
            api.wait_ready()
            secrets = asyncio.run(keys(settings))
            figures["load_notes"] = load_notes(api, secrets, size)
            print("notes:", figures["load_notes"], flush=True)
            figures["load_memory"] = asyncio.run(load_memory(api, secrets, size))
            print("memory:", figures["load_memory"], flush=True)
            figures["settled_s"] = settle(local)
            figures["measured"] = measure(api, settings, secrets)
        finally:
            api.stop()
    print(json.dumps(figures, indent=2))
    if size != FULL:
        return figures
    path = save("wakeup", figures)
    print(f"wake-up figures on {machine()['cpu']} ({machine()['cores']} cores) -> {path}")
    return figures


if __name__ == "__main__":
    import sys

    main(QUICK if sys.argv[1:] == ["quick"] else FULL)
