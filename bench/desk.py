"""How fast the desk's pages render (``/desk``), for a user with ``scale`` notes and as many
journal entries, in one run.

On a private Neo4j with the API in its own process, ``scale`` notes are loaded through the
API (clustered vectors and words, :mod:`bench.corpus`; each create journaled, so the journal
holds ``scale`` entries too). An agent (``scribe``) then works in a session: it writes
``AGENT_NOTES`` notes, a person corrects half of them (corrections), the agent writes those
back (proposals waiting), and ends its session with pending actions; a person records
``DECISIONS`` decisions, a few superseded. Then a person signs in to the desk and every page
is fetched ``runs`` times after two rounds of warm-up, in turns; the figure is the API's own
time for the request (``Server-Timing``: the session's check, the services' reads, the
templates), p50 and p95. The goal: each ≤ 100 ms. The pages are measured right after the
load (the indexes in the many segments loading left) and again after a restart of Neo4j
(which merges them, as on a server that has run a while), as ``bench/knowledge.py`` does.

``runs`` is 100 (20 before 2026-12-02: a p95 of 20 samples is the second-slowest, one stall
of the two cores; of 100 it is the sixth-slowest). ``python -m bench.desk [scale] [runs]``
(100,000 notes by default, about 8 minutes) saves ``bench/results/desk.json``.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from typing import Any

import httpx

from bench.common import save, summary_ms
from bench.corpus import Corpus, api_load, private_api, rotated, server_seconds, settle, vector_segments
from graph.core.db import Database
from graph.core.principals import ApiKeys, Role
from graph.core.settings import Settings

AGENT = "scribe"
AGENT_NOTES = 200
DECISIONS = 40
GOAL_MS = 100.0


async def agent_key(settings: Settings, user: str) -> str:
    """A key of agent ``scribe`` for ``user``, made straight in Neo4j."""
    db = Database.from_settings(settings)
    try:
        _, secret = await ApiKeys(db).create(user, Role.AGENT, agent_id=AGENT)
        return secret
    finally:
        await db.close()


def agent_work(person: httpx.Client, agent: httpx.Client) -> dict[str, int]:
    """The agent's session, a person's corrections, the proposals they hold, decisions."""
    started = agent.post("/v1/sessions", json={})
    assert started.status_code == 201, started.text
    session = started.json()["session"]["id"]
    headers = {"X-Session-ID": session}
    items = [
        {"id": f"a{i}", "title": f"Agent note {i}", "content": f"Billing retries {i} times.", "type": "fact",
         "dedupe": False}
        for i in range(AGENT_NOTES)
    ]  # fmt: skip
    agent.post("/v1/knowledge/batch", json={"items": items}, headers=headers).raise_for_status()
    proposals = 0
    for i in range(0, AGENT_NOTES, 2):
        fixed = {"content": f"Billing retries {i % 3} times, then gives up."}
        person.patch(
            f"/v1/knowledge/a{i}", json=fixed, headers={"X-Change-Reason": "audit"}
        ).raise_for_status()
        back = agent.patch(
            f"/v1/knowledge/a{i}", json={"content": f"Billing retries {i} times!"}, headers=headers
        )
        proposals += back.status_code == 202
    ended = {"summary": "Wrote the billing notes.", "topics": ["billing"], "messageCount": 40,
             "pendingActions": [f"Check retry path {i}" for i in range(5)]}  # fmt: skip
    agent.post(f"/v1/sessions/{session}/end", json=ended).raise_for_status()
    refused: list[str] = []
    for i in range(DECISIONS):
        body = {"id": f"d{i}", "title": f"Decision {i}", "context": "Billing.",
                "decision": f"Billing does {i}.", "consequences": [], "agents": [AGENT]}  # fmt: skip
        answer = person.post("/v1/decisions", json=body)
        if answer.status_code >= 300:
            refused.append(answer.text[:300])
    for i in range(0, DECISIONS // 4):
        answer = person.post(f"/v1/decisions/d{i}/supersede", json={"byId": f"d{i + DECISIONS // 2}"})
        if answer.status_code >= 300:
            refused.append(answer.text[:300])
    if refused:  # the pages are measured all the same; the figures say what was missing
        print(f"{len(refused)} project writes refused, the first: {refused[0]}", file=sys.stderr)
    return {
        "agent_notes": AGENT_NOTES,
        "proposals": proposals,
        "decisions": DECISIONS,
        "refused": len(refused),
    }


def signed_in(base_url: str, key: str) -> httpx.Client:
    """A client holding a desk session of the person with ``key`` (a cookie, as a browser)."""
    desk = httpx.Client(base_url=base_url, timeout=120)
    form = desk.get("/desk/sign-in").text
    match = re.search(r'name="csrf" value="([0-9a-f]+)"', form)
    assert match is not None
    desk.post("/desk/sign-in", data={"key": key, "csrf": match.group(1)})
    assert desk.cookies.get("desk_session"), "sign-in failed"
    return desk


def pages(word: str) -> dict[str, str]:
    """The pages measured, by name."""
    return {
        "inbox": "/desk/inbox",
        "inbox_agent": f"/desk/inbox?agent={AGENT}",
        "timeline": "/desk/timeline",
        "timeline_agent_kind": f"/desk/timeline?agent={AGENT}&kind=note",
        "note": "/desk/notes/a0",
        "search": f"/desk/search?q={word}",
        "project": "/desk/project",
        "project_agent": f"/desk/project?agent={AGENT}",
        "sessions_agent": f"/desk/sessions?agent={AGENT}",
    }


def measure(desk: httpx.Client, paths: dict[str, str], runs: int) -> dict[str, Any]:
    """p50/p95 of the server's time for each page, the pages taking turns."""
    timings: dict[str, list[float]] = {name: [] for name in paths}
    names = list(paths)
    for n in range(runs + 2):
        for name in rotated(names, n):
            response = desk.get(paths[name])
            assert response.status_code == 200, (name, response.status_code, response.text[:300])
            if n >= 2:  # two rounds of warm-up
                timings[name].append(server_seconds(response))
    out = {name: summary_ms(values) for name, values in timings.items()}
    for figures in out.values():
        figures["within_goal"] = figures["p95_ms"] <= GOAL_MS
    return out


def main(scale: int = 100_000, runs: int = 100) -> dict[str, Any]:
    corpus = Corpus(seed=scale)
    user = f"bench-{scale}-desk"
    with private_api("ctxnet-bench-desk-", user, timeout=600) as (local, client, _, api):
        _, _, rate = api_load(client, corpus, "n", scale)
        settled = settle(local)  # the vector index caught up, before anything searches
        key = str(client.headers["Authorization"]).split()[1]
        with httpx.Client(
            base_url=str(client.base_url),
            headers={"Authorization": f"Bearer {asyncio.run(agent_key(local.settings, user))}"},
            timeout=600,
        ) as agent:
            work = agent_work(client, agent)
        desk = signed_in(str(client.base_url), key)
        try:
            figures: dict[str, Any] = {
                "notes": scale,
                "journal_entries_at_least": scale + work["agent_notes"],
                "load_notes_per_s": round(rate, 1),
                "settle_s": settled,
                **work,
                "goal_ms": GOAL_MS,
                "vector_segments": vector_segments(local),
                "pages": measure(desk, pages(corpus.vocab[3][7]), runs),
            }
            local.stop()  # Neo4j merges its indexes' segments when it closes them
            local.start()
            api.wait_ready()
            figures["vector_segments_after_restart"] = vector_segments(local)
            figures["pages_after_restart"] = measure(desk, pages(corpus.vocab[3][7]), runs)
        finally:
            desk.close()
    path = save("desk", figures)
    print(json.dumps(figures, indent=2), f"\n-> {path}")
    return figures


if __name__ == "__main__":
    main(*(int(arg) for arg in sys.argv[1:3]))
