"""What the forget tests plant and probe: one user's memory with a text in every kind a
forget reaches, and every read path an agent or a person has, asked for that text."""

from __future__ import annotations

import asyncio
import io
import json
import random
from dataclasses import dataclass, field
from typing import Any

import httpx

from ctxnet.client import AsyncClient
from ctxnet.io.exporter import run_export
from tests.integration.conftest import Caller


@dataclass
class Planted:
    """What ``plant`` wrote for one text: ids by kind, and the probe queries it suggests."""

    token: str
    notes: list[str] = field(default_factory=list)
    thread: str = ""
    session: str = ""
    page: str = ""
    decision: str = ""
    queries: list[str] = field(default_factory=list)


WORDS = [
    "ledger",
    "billing",
    "token",
    "refresh",
    "postgres",
    "cache",
    "queue",
    "deploy",
    "canary",
    "rollback",
    "schema",
    "index",
    "vector",
    "replica",
    "backup",
    "tenant",
    "invoice",
    "webhook",
    "retry",
    "latency",
    "budget",
    "migration",
    "cursor",
]


#: What an agent writes and a person corrects: far apart, so no two users' (or texts') notes
#: are twins of each other.
AGENT_SAYS = [
    "the nightly export to the warehouse fails when the VPN drops.",
    "our Kubernetes pods restart because memory limits are too tight.",
    "the marketing site is built with Hugo and deployed from main.",
    "invoices older than seven years are archived to cold storage.",
    "the mobile app crashes on Android 12 when the camera opens.",
    "customer emails are answered within four business hours.",
]
PERSON_SAYS = [
    "lunch on Fridays is ordered from the Thai place downstairs.",
    "the office plants are watered every Tuesday by the facilities team.",
    "the quarterly offsite is in Lisbon this year, in early May.",
    "new laptops ship with sixteen gigabytes of memory by default.",
]


async def ok(answer: httpx.Response, *codes: int) -> dict[str, Any]:
    """The answer's JSON, once its status is one of ``codes`` (200 or 201 by default)."""
    assert answer.status_code in (codes or (200, 201)), (answer.request.url, answer.status_code, answer.text)
    body: dict[str, Any] = answer.json() if answer.content else {}
    return body


async def wait_job(caller: Caller, job_id: str) -> dict[str, Any]:
    """The job once done (polled, with a deadline)."""
    for _ in range(400):
        job = await ok(await caller.http.get(f"/v1/jobs/{job_id}"))
        if job["status"] in ("done", "failed"):
            assert job["status"] == "done", job
            return job
        await asyncio.sleep(0.05)
    raise AssertionError(f"job {job_id} did not finish")


async def plant(person: Caller, agent: Caller, token: str, rng: random.Random, n: int) -> Planted:
    """``token`` in every kind a forget reaches: notes (tagged, connected, merged with a twin,
    updated, one deleted), an agent's note a person corrected and a proposal about it, a
    thread whose messages became insights and notes, a saved session's wiki page, a
    decision. Sessions, pending actions, goals, skills and the profile never carry it."""
    p = Planted(token)
    words = rng.sample(WORDS, 6)
    key = f"k{rng.getrandbits(40):x}"  # ids do not carry the text: the journal keeps them
    for k in range(rng.randint(3, 6)):
        note_id = f"{key}-n{k}"
        runs = f"runs {rng.choice(WORDS)} before {rng.choice(WORDS)} ({k})"
        body = {
            "id": note_id, "title": f"{token} {words[k]}", "type": rng.choice(TYPES),
            "content": f"The {words[k]} of {token} {runs}.", "dedupe": False,
            "tags": [f"tag-{token}"] if rng.random() < 0.5 else [],
        }  # fmt: skip
        await ok(await person.http.post("/v1/knowledge", json=body))
        p.notes.append(note_id)
        p.queries += [body["title"], body["content"]]
    for a, b in zip(p.notes, p.notes[1:], strict=False):
        edge = {"type": rng.choice(["relatedTo", "dependsOn"]), "targetId": b}
        await ok(await person.http.post(f"/v1/knowledge/{a}/connections", json=edge))
    first = (await ok(await person.http.get(f"/v1/knowledge/{p.notes[0]}")))["content"]
    twin = {"title": f"{token} {words[0]}", "type": "fact", "content": first + "!"}
    await ok(await person.http.post("/v1/knowledge", json=twin))
    patch = {"content": f"Changed: {token} moved to {words[1]}."}
    await ok(await person.http.patch(f"/v1/knowledge/{p.notes[1]}", json=patch))
    gone = f"{key}-deleted"
    await ok(await person.http.post("/v1/knowledge", json={
        "id": gone, "title": f"{token} deleted", "content": f"{token} was deleted before.", "type": "fact",
    }))  # fmt: skip
    await ok(await person.http.delete(f"/v1/knowledge/{gone}"), 204)
    # An agent's note a person corrects (a correction), and the agent's change back (a proposal).
    agents_note = {"id": f"{key}-agent", "title": f"{token} by agent", "type": "fact",
                   "content": f"{token}: {AGENT_SAYS[n % len(AGENT_SAYS)]}"}  # fmt: skip
    await ok(await agent.http.post("/v1/knowledge", json=agents_note))
    await ok(
        await person.http.patch(
            f"/v1/knowledge/{key}-agent", json={"content": f"{token}: {PERSON_SAYS[n % len(PERSON_SAYS)]}"}
        )
    )
    await ok(
        await agent.http.patch(f"/v1/knowledge/{key}-agent", json={"content": f"{token} is slow again."}),
        202,
    )
    p.notes.append(f"{key}-agent")
    # A conversation: messages, their insights and the notes drawn from them.
    p.thread = f"{key}-thread"
    await ok(await person.http.post("/v1/threads", json={"id": p.thread, "topic": f"About {token}"}))
    said = [{"role": "user", "content": f"We decided to use {token} for billing."},
            {"role": "user", "content": f"I prefer {token} over {words[2]}."}]  # fmt: skip
    await ok(await person.http.post(f"/v1/threads/{p.thread}/messages", json={"messages": said}))
    job = await ok(await person.http.post(f"/v1/threads/{p.thread}/feedback-loop"), 202)
    await wait_job(person, job["jobId"])
    # A session saved as a wiki page (the session's own summary does not carry the text).
    p.session = f"{key}-session"
    await ok(await agent.http.post("/v1/sessions", json={"id": p.session, "topic": "weekly work"}))
    await ok(await agent.http.post(f"/v1/sessions/{p.session}/end", json={"summary": "Worked on the week."}))
    save = {"summary": f"Settled {token}.", "learnings": [f"{token} needs {words[3]}"],
            "insights": [{"type": "fact", "content": f"{token} fact {k}"} for k in range(3)]}  # fmt: skip
    p.page = (await ok(await agent.http.post(f"/v1/sessions/{p.session}/save", json=save)))["page"]["slug"]
    decision = {"title": f"Adopt {token}", "context": f"{token} context", "decision": f"Use {token}.",
                "consequences": [f"{token} everywhere."]}  # fmt: skip
    p.decision = (await ok(await person.http.post("/v1/decisions", json=decision)))["decision"]["id"]
    p.queries += [token, f"{token} billing", f"use {token}", f"{token} {words[3]}", said[0]["content"]]
    p.queries = [token, *rng.sample(p.queries[1:], 5)]
    return p


def kept_text(token: str) -> dict[str, Any]:
    """A note that stays (another text)."""
    return {
        "id": f"{token}-kept",
        "title": f"{token} kept",
        "content": f"{token} stays in memory.",
        "type": "fact",
    }


MODES = ("hybrid", "vector", "fulltext")
TYPES = ("fact", "concept", "procedure")
#: The lists a person pages through.
LISTS = (
    "/v1/mutations", "/v1/proposals", "/v1/corrections", "/v1/insights", "/v1/knowledge", "/v1/wiki",
    "/v1/threads", "/v1/decisions", "/v1/sessions", "/v1/pending-actions",
)  # fmt: skip


async def probe(caller: Caller, base_url: str, queries: list[str], texts: list[str]) -> tuple[int, list[str]]:
    """Ask every read path for each query (four at a time); the calls made and where any of
    ``texts`` was seen (an answer's echo of the query itself aside)."""
    seen: list[str] = []
    calls = 0
    http = caller.http

    async def ask(where: str, method: str, path: str, q: str | None, **kwargs: Any) -> httpx.Response:
        nonlocal calls
        answer = await http.request(method, path, **kwargs)
        calls += 1
        text = answer.text
        if q is not None:  # orient, brief and unified search say what they were asked
            text = text.replace(json.dumps(q)[1:-1], "")
        lowered = text.lower()
        for t in texts:
            at = lowered.find(t.lower())
            if at >= 0:
                seen.append(f"{where}: {t!r} in ...{text[max(0, at - 300) : at + 100]}")
        return answer

    async def one(q: str) -> None:
        for mode in MODES:
            for depth in range(4):
                body = {
                    "query": q,
                    "mode": mode,
                    "topK": 20,
                    "maxDepth": depth,
                    "includeSuperseded": depth % 2 == 1,
                }
                await ask(f"search {mode} {depth} {q!r}", "POST", "/v1/search", q, json=body)
        unified = {"query": q, "layers": ["knowledge", "memory", "docs"], "topK": 20}
        await ask(f"unified {q!r}", "POST", "/v1/search/unified", q, json=unified)
        await ask(f"recall {q!r}", "POST", "/v1/context/user", q, json={"query": q, "limit": 20})
        await ask(f"bridge {q!r}", "POST", "/v1/context/bridge", q, json={"topic": q})
        await ask(f"brief {q!r}", "POST", "/v1/brief", q, json={"task": q, "tokenBudget": 4000})
        await ask(f"orient {q!r}", "POST", "/v1/orient", q, json={"goal": q})

    for start in range(0, len(queries), 4):
        await asyncio.gather(*(one(q) for q in queries[start : start + 4]))
    await ask("catch_up", "POST", "/v1/catch-up", None, json={"since": "2000-01-01T00:00:00Z"})
    for path in LISTS:
        cursor = None
        while True:
            params = {"limit": 200} | ({"cursor": cursor} if cursor else {})
            cursor = (await ask(path, "GET", path, None, params=params)).json().get("nextCursor")
            if not cursor:
                break
    out = io.StringIO()
    async with AsyncClient(base_url, caller.key) as client:
        await run_export(client, out)
    calls += 1
    seen.extend(f"export: {t}" for t in texts if t.lower() in out.getvalue().lower())
    return calls, seen
