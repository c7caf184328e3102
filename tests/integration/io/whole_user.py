"""What the tests of a whole user out and back share: a user who holds one of every kind, and
the user's whole subgraph as Neo4j holds it, in a form two users can be compared in."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from graph.core.db import Database
from graph.core.principals import Role
from graph.core.tenancy import tenant_key
from tests.integration.conftest import Caller, MakeCaller, inspect
from tests.support.jobs import run_job
from tests.support.sweep import seed_everything

#: Neo4j's temporal types, as ``valueType`` names them: compared as Neo4j writes them.
TEMPORAL = ".*(TIME|DATE|DURATION).*"
#: What an export leaves out (docs/import.md): keys, rate windows, jobs.
LEFT_OUT = {"ApiKey", "RateWindow", "Job"}


async def ok(answer: Any, *statuses: int) -> Any:
    """The JSON of an answer whose status is one of ``statuses`` (200/201/202/204 if none)."""
    assert answer.status_code in (statuses or (200, 201, 202, 204)), (answer.request.url, answer.text[:500])
    return answer.json() if answer.content else None


async def remember_everything(person: Caller, make_caller: MakeCaller, token: str) -> dict[str, str]:
    """One of every kind the user can own, in every state the issue names: notes with merges,
    edges and valid time, threads, messages, insights (one promoted into the profile),
    sessions with pending actions (carried, cleared, open) and tool calls, a saved page with
    insights, goals (one done), skills loaded (counters), the profile, agent docs,
    decisions, patterns, constraints, corrections with acknowledgements, proposals approved,
    rejected and pending, an undo, an invalidation, a catch_up (an access record)."""
    http = person.http
    ids = await seed_everything(person, make_caller, token)
    agent = await make_caller(Role.AGENT, agent_id="helper", user_id=person.user_id)
    twin = {"id": "twin", "title": f"Secret {token}", "content": f"{token} {ids['note']} I prefer tea.",
            "type": "fact"}  # fmt: skip
    assert (await ok(await http.post("/v1/knowledge", json=twin)))["mergedInto"] == ids["note"]
    timed = {"id": "timed", "title": "Office in Lyon", "content": "The office was in Lyon.", "type": "fact",
             "validFrom": "2020-01-01T00:00:00+01:00", "dedupe": False}  # fmt: skip
    await ok(await http.post("/v1/knowledge", json=timed))
    await ok(
        await http.post(
            "/v1/knowledge/timed/invalidate", json={"reason": "Moved.", "at": "2024-06-01T00:00:00Z"}
        )
    )
    edge = {"type": "dependsOn", "targetId": "timed", "confidence": 0.5}
    await ok(await http.post(f"/v1/knowledge/{ids['note2']}/connections", json=edge))
    gone = {"id": "gone", "title": "Temporary", "content": "Deleted, then undone.", "type": "fact",
            "dedupe": False}  # fmt: skip
    await ok(await http.post("/v1/knowledge", json=gone))
    await ok(await http.delete("/v1/knowledge/gone"))
    [deleted] = (await ok(await http.get("/v1/mutations", params={"targetId": "gone", "limit": 1})))["items"]
    await ok(await http.post(f"/v1/mutations/{deleted['id']}/undo"))
    for n, value in enumerate(payloads(seed=len(token))):  # notes and messages with payloads
        kept = {"id": f"payload-{n}", "title": f"Payload {n}", "content": f"A payload kept, number {n}.",
                "type": "fact", "dedupe": False, "data": value}  # fmt: skip
        await ok(await http.post("/v1/knowledge", json=kept), 201)
        said = {"messages": [{"role": "tool", "content": f"Payload {n}.", "data": value}]}
        await ok(await http.post(f"/v1/threads/{ids['thread2']}/messages", json=said), 201)
    pattern = {"title": "Small commits", "description": "Commit small, honest steps."}
    await ok(await http.post("/v1/patterns", json=pattern))
    # Corrections: acknowledged, and proposals approved, rejected and pending.
    await ok(await agent.http.post("/v1/sessions", json={"id": "s-fix", "agentId": "helper"}))
    ack = {"sessionId": "s-fix", "actionTaken": "Read it."}
    await ok(await agent.http.post(f"/v1/corrections/{ids['correction']}/ack", json=ack))
    for n, decide in enumerate(("approve", "reject", None)):
        topic = ("the billing queue", "the search cache", "the nightly backup")[n]
        body = {"id": f"fix-{n}", "title": f"About {topic}", "content": f"{topic} runs at {n} am.",
                "type": "fact", "dedupe": False}  # fmt: skip
        await ok(await agent.http.post("/v1/knowledge", json=body), 201)
        await ok(await http.patch(f"/v1/knowledge/fix-{n}", json={"content": f"{topic} runs at {n + 3} am."}))
        back = await ok(
            await agent.http.patch(f"/v1/knowledge/fix-{n}", json={"content": body["content"]}), 202
        )
        if decide:
            await ok(
                await http.post(f"/v1/proposals/{back['proposal']['id']}/{decide}", json={"reason": decide})
            )
    # Sessions: an action carried into another session, one cleared; tool calls; goals; skills.
    end = {"summary": "Two actions.", "pendingActions": ["Carry me", "Clear me"]}
    left = (await ok(await agent.http.post("/v1/sessions/s-fix/end", json=end)))["pendingActions"]
    await ok(
        await agent.http.post("/v1/sessions", json={"id": "s-next", "agentId": "helper", "topic": "next"})
    )
    await ok(
        await agent.http.post(f"/v1/pending-actions/{left[0]['id']}/carry", json={"sessionId": "s-next"})
    )
    await ok(await http.post(f"/v1/pending-actions/{left[1]['id']}/ack", json={"resolution": "Done."}))
    calls = {"items": [{"tool": "search", "arguments": {"q": [1, 2.5, None]}, "durationMs": 7}]}
    await ok(await agent.http.post("/v1/sessions/s-next/tool-calls", json=calls))
    sub = await ok(await http.post("/v1/goals", json={"title": "Sub goal", "parentId": ids["goal"]}))
    await ok(await http.post(f"/v1/goals/{sub['id']}/complete"))
    for _ in range(2):
        await ok(await agent.http.post(f"/v1/skills/{ids['skill']}/load"))
    # Memory: a thread through the feedback loop, an insight promoted into the profile.
    said = {"messages": [{"role": "user", "content": "We decided to use Postgres for billing.",
                          "createdAt": "2026-03-01T09:01:00.123456+02:00"}]}  # fmt: skip
    await ok(await http.post(f"/v1/threads/{ids['thread2']}/messages", json=said))
    loop = await run_job(http, f"/v1/threads/{ids['thread2']}/feedback-loop")
    assert loop["status"] == "done", loop
    await ok(await http.post("/v1/profile/promote", json={"insightIds": [ids["insight"]]}))
    await ok(await http.post("/v1/catch-up", json={}))
    return ids


def payloads(seed: int, count: int = 6) -> list[Any]:
    """Generated JSON values that are easy to get wrong: keys out of order, integers at the
    64-bit edges, floats, any script, quotes and escapes, empty containers, nested deep."""
    rng = random.Random(seed)
    alphabet = ["a", "é", '"', "\\", "\n", "😀", "中", " ", "\u2028", "0"]

    def text() -> str:
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8)))

    def value(depth: int) -> Any:
        kind = rng.randint(0, 7 if depth < 6 else 4)
        scalars: list[Any] = [text(), rng.choice([2**63 - 1, -(2**63), 0, -1]), rng.uniform(-1e9, 1e9),
                              rng.choice([True, False]), None]  # fmt: skip
        if kind < 5:
            return scalars[kind]
        if kind == 5:
            return [value(depth + 1) for _ in range(rng.randint(0, 4))]
        keys = [text() for _ in range(rng.randint(0, 4))]
        return {k: value(depth + 1) for k in sorted(keys, reverse=True)}

    return [{"z": 1, "a": [1.0, 1, "1"], "m": {"b": None, "a": {}}}, "just text", 2**63 - 1] + [
        v for v in (value(0) for _ in range(count)) if v is not None
    ]


def _value(kind: str, value: Any, user: str) -> Any:
    if value == user:
        return "<user>"
    if isinstance(value, list):
        return [_value(kind, v, user) for v in value]
    return [kind, value]


async def subgraph(db: Database, user: str) -> dict[str, Any]:
    """The user's whole subgraph, straight from Neo4j: every node that carries the user's id
    (labels, every property with its Neo4j type, temporal values as Neo4j writes them) and
    every relationship from one of them (to any node at all), with the user's id and tenant
    key written as placeholders so two users compare; by kind."""
    nodes = await inspect(
        db,
        "MATCH (n) WHERE n.userId = $user "
        "RETURN elementId(n) AS id, labels(n) AS labels, [k IN keys(n) | [k, valueType(n[k]), "
        "CASE WHEN valueType(n[k]) =~ $temporal THEN toString(n[k]) ELSE n[k] END]] AS props",
        temporal=TEMPORAL,
        user=user,
    )
    relationships = await inspect(
        db,
        "MATCH (a)-[r]->(b) WHERE a.userId = $user "
        "RETURN elementId(a) AS a, elementId(b) AS b, type(r) AS type, [k IN keys(r) | [k, valueType(r[k]), "
        "CASE WHEN valueType(r[k]) =~ $temporal THEN toString(r[k]) ELSE r[k] END]] AS props",
        temporal=TEMPORAL,
        user=user,
    )
    key = tenant_key(user)
    seen: dict[str, str] = {}
    by_kind: dict[str, Counter[str]] = {}
    tenant: dict[str, Any] = {}
    for node in nodes:
        props = {
            k: ("<tenantKey>" if k == "tenantKey" and v == key else _value(t, v, user))
            for k, t, v in node["props"]
        }
        labels = sorted(node["labels"])
        text = json.dumps([labels, props], sort_keys=True)
        seen[node["id"]] = text
        if "Tenant" in labels:
            tenant = {k: v for k, _, v in node["props"]}
        elif not LEFT_OUT & set(labels):
            by_kind.setdefault(labels[0] if len(labels) == 1 else "+".join(labels), Counter())[text] += 1
    edges: Counter[str] = Counter()
    for rel in relationships:
        props = {k: _value(t, v, user) for k, t, v in rel["props"]}
        ends = [
            seen.get(rel["a"], f"another user's node {rel['a']}"),
            seen.get(rel["b"], f"another user's {rel['b']}"),
        ]
        edges[json.dumps([rel["type"], ends, props], sort_keys=True)] += 1
    return {"nodes": by_kind, "relationships": edges, "tenant": tenant}
