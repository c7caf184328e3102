"""Valid time on notes and edges, invalidation, and both clocks (``asOf``: what was true
then; ``asKnownAt``: what the memory held then), over HTTP against the real Neo4j."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

from graph.core.db import Database
from graph.core.principals import Role
from tests.integration.conftest import Caller, MakeCaller
from tests.integration.knowledge.mutations import undo

ENDED = "The office wifi password is Falcon until 31 March 2020."
SINCE = "The billing team has used PostgreSQL since 2024."


def note(node_id: str, content: str, **extra: Any) -> dict[str, Any]:
    return {"id": node_id, "title": "Fact", "content": content, "type": "fact", **extra}


async def create(caller: Caller, node_id: str, content: str, **extra: Any) -> dict[str, Any]:
    answer = await caller.http.post("/v1/knowledge", json=note(node_id, content, **extra))
    assert answer.status_code == 201, answer.text
    return dict(answer.json()["node"])


async def found(caller: Caller, query: str, **body: Any) -> list[str]:
    answer = await caller.http.post("/v1/search", json={"query": query, "topK": 10, **body})
    assert answer.status_code == 200, answer.text
    return [h["node"]["id"] for h in answer.json()["hits"]]


async def get(caller: Caller, node_id: str, **params: str) -> Any:
    return await caller.http.get(f"/v1/knowledge/{node_id}", params=params)


def iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds")


async def test_validity_sent_or_stated_in_the_text_and_true_now_by_default(make_caller: MakeCaller) -> None:
    alice = await make_caller(Role.AGENT, agent_id="scribe")
    wifi = await create(alice, "wifi", ENDED)
    assert wifi["validUntil"] == "2020-04-01T00:00:00.000+00:00" and "validFrom" not in wifi
    assert (await create(alice, "pg", SINCE))["validFrom"] == "2024-01-01T00:00:00.000+00:00"
    sent = await create(
        alice, "freeze", "The release freeze for the mobile app is on.",
        validFrom="2025-01-01T00:00:00Z", validUntil="2025-02-01T00:00:00Z",
    )  # fmt: skip
    assert (sent["validFrom"], sent["validUntil"]) == (
        "2025-01-01T00:00:00.000+00:00", "2025-02-01T00:00:00.000+00:00",
    )  # fmt: skip
    bad = await alice.http.post(
        "/v1/knowledge",
        json=note("x", "Anything.", validFrom="2025-02-01T00:00:00Z", validUntil="2025-01-01T00:00:00Z"),
    )
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "validUntil", bad.text

    # True now by default: what has ended is left out, unless asked for.
    assert "wifi" not in await found(alice, "office wifi password")
    assert "freeze" not in await found(alice, "release freeze mobile app")
    assert "wifi" in await found(alice, "office wifi password", includeEnded=True)
    assert "pg" in await found(alice, "billing team PostgreSQL")
    # What was true then: recorded after its stated end, it counts as begun before it.
    assert "wifi" in await found(alice, "office wifi password", asOf="2020-03-01T00:00:00Z")
    assert "freeze" in await found(alice, "release freeze mobile app", asOf="2025-01-15T00:00:00Z")
    assert "freeze" not in await found(alice, "release freeze mobile app", asOf="2025-03-01T00:00:00Z")
    assert "pg" not in await found(alice, "billing team PostgreSQL", asOf="2023-06-01T00:00:00Z")
    # Listings filter by it.
    current = (await alice.http.get("/v1/knowledge", params={"current": "true"})).json()["items"]
    assert sorted(n["id"] for n in current) == ["pg"]
    then = (await alice.http.get("/v1/knowledge", params={"asOf": "2025-01-15T00:00:00Z"})).json()["items"]
    assert sorted(n["id"] for n in then) == ["freeze", "pg"]


async def test_a_supersedes_edge_ends_the_older_fact_and_as_of_finds_the_version_true_then(
    make_caller: MakeCaller,
) -> None:
    alice = await make_caller()
    await create(
        alice, "port", "The staging database listens on port 5432.", validFrom="2025-01-01T00:00:00Z"
    )
    newer = await alice.http.post(
        "/v1/knowledge",
        json=note("port-new", "The staging database listens on port 6432.", validFrom="2026-06-01T00:00:00Z"),
    )
    assert newer.json()["supersedes"] == "port", newer.text
    old = (await get(alice, "port")).json()
    assert (old["status"], old["validUntil"]) == ("superseded", "2026-06-01T00:00:00.000+00:00")

    query = "staging database port"
    assert await found(alice, query) == ["port-new"]
    assert await found(alice, query, asOf="2026-01-01T00:00:00Z") == ["port"]
    assert await found(alice, query, asOf="2026-07-01T00:00:00Z") == ["port-new"]
    assert await found(alice, query, asOf="2024-01-01T00:00:00Z") == []
    version = await get(alice, "port-new", asOf="2026-01-01T00:00:00Z")
    assert version.status_code == 200 and version.json()["id"] == "port"
    assert (await get(alice, "port", asOf="2026-07-01T00:00:00Z")).json()["id"] == "port-new"
    none = await get(alice, "port", asOf="2024-01-01T00:00:00Z")
    assert none.status_code == 404 and none.json()["error"]["field"] == "asOf"


async def test_edges_have_valid_time_and_expansion_follows_only_those_still_true(
    make_caller: MakeCaller,
) -> None:
    alice = await make_caller()
    await create(alice, "svc", "The checkout service sends its receipts by email.")
    await create(alice, "smtp", "Mail relay runs on the old SMTP host.")
    linked = await alice.http.post(
        "/v1/knowledge/svc/connections",
        json={"type": "dependsOn", "targetId": "smtp", "validUntil": "2020-01-01T00:00:00Z"},
    )
    assert (
        linked.status_code == 201 and linked.json()["edge"]["validUntil"] == "2020-01-01T00:00:00.000+00:00"
    )
    body = {"query": "checkout receipts email", "topK": 1, "mode": "fulltext"}
    now = (await alice.http.post("/v1/search", json=body)).json()
    assert [h["node"]["id"] for h in now["hits"]] == ["svc"] and now["expanded"] == []
    ended = (await alice.http.post("/v1/search", json=body | {"includeEnded": True})).json()
    assert [r["node"]["id"] for r in ended["expanded"]] == ["smtp"]


async def test_invalidate_is_journaled_undoable_and_leaves_every_agent_read(make_caller: MakeCaller) -> None:
    alice = await make_caller(Role.AGENT, agent_id="coder")
    person = await make_caller(Role.HUMAN, user_id=alice.user_id)
    await create(alice, "cache", "The session cache lives in Redis cluster Kestrel.")
    decision = {
        "id": "adr-q",
        "title": "Queue on RabbitMQ",
        "context": "c",
        "decision": "Jobs go through RabbitMQ.",
    }
    assert (await person.http.post("/v1/decisions", json=decision)).status_code == 201
    query = "session cache Redis Kestrel"

    async def served() -> dict[str, bool]:
        """Whether each read that feeds an agent serves the cache fact."""
        unified = (await alice.http.post("/v1/search/unified", json={"query": query})).json()
        brief = (await alice.http.post("/v1/brief", json={"task": query})).json()
        bridge = (await alice.http.post("/v1/context/bridge", json={"topic": query})).json()
        orient = (await alice.http.post("/v1/orient", json={})).json()
        return {
            "search": "cache" in await found(alice, query),
            "unified": "cache" in [r["item"].get("id") for r in unified["results"]],
            "brief": "Kestrel" in str(brief["sections"]),
            "bridge": "cache" in [m["id"] for m in bridge["sections"]["memory"]],
            "orient": "cache" in [e["id"] for e in orient["hotEntities"]],
        }

    assert set((await served()).values()) == {True}

    gone = await alice.http.post("/v1/knowledge/cache/invalidate", json={"reason": "moved to Valkey"})
    assert gone.status_code == 200, gone.text
    assert gone.json()["invalidReason"] == "moved to Valkey" and "validUntil" in gone.json()
    again = await alice.http.post("/v1/knowledge/cache/invalidate", json={"reason": "twice"})
    assert again.status_code == 409 and again.json()["error"]["field"] == "at"
    assert await served() == dict.fromkeys(["search", "unified", "brief", "bridge", "orient"], False)

    # A person's decision, invalidated by a person, leaves the agent's instructions.
    instructions = await alice.http.get("/v1/agents/coder/instructions")
    assert "RabbitMQ" in instructions.json()["text"]
    assert (
        await person.http.post("/v1/knowledge/adr-q/invalidate", json={"reason": "retired"})
    ).status_code == 200
    assert "RabbitMQ" not in (await alice.http.get("/v1/agents/coder/instructions")).json()["text"]

    # Undo brings the fact back, to search and to its own history.
    [entry] = [
        m for m in (await alice.http.get("/v1/mutations", params={"targetId": "cache"})).json()["items"]
        if m["op"] == "note.update"
    ]  # fmt: skip
    assert entry["after"]["invalidReason"] == "moved to Valkey"
    assert (await undo(alice, entry["id"])).status_code == 200
    back = (await get(alice, "cache")).json()
    assert "validUntil" not in back and "invalidReason" not in back
    assert set((await served()).values()) == {True}


async def test_an_agent_may_not_end_what_a_person_wrote(make_caller: MakeCaller) -> None:
    agent = await make_caller(Role.AGENT, agent_id="scribe")
    person = await make_caller(Role.HUMAN, user_id=agent.user_id)
    await create(person, "rule", "Refunds above 500 euros need a second approver.")
    held = await agent.http.post("/v1/knowledge/rule/invalidate", json={"reason": "I think it changed"})
    assert held.status_code == 202, held.text
    patched = await agent.http.patch("/v1/knowledge/rule", json={"validUntil": "2020-01-01T00:00:00Z"})
    assert patched.status_code == 202, patched.text
    assert "validUntil" not in (await get(person, "rule")).json()
    approved = await person.http.post(f"/v1/proposals/{held.json()['proposal']['id']}/approve")
    assert approved.status_code == 200, approved.text
    assert (await get(person, "rule")).json()["invalidReason"] == "I think it changed"
    # A person ended it: an agent may not open it again.
    reopened = await agent.http.patch("/v1/knowledge/rule", json={"validUntil": None})
    assert reopened.status_code == 202, reopened.text
    own = await person.http.patch("/v1/knowledge/rule", json={"validUntil": None})
    assert own.status_code == 200 and "validUntil" not in own.json() and "invalidReason" not in own.json()


async def test_concurrent_invalidations_of_one_note_one_stands(make_caller: MakeCaller) -> None:
    alice = await make_caller(Role.AGENT, agent_id="scribe")
    await create(alice, "flag", "The dark-mode feature flag is on for beta users.")
    answers = await asyncio.gather(*(
        alice.http.post("/v1/knowledge/flag/invalidate", json={"reason": f"caller {n}"}) for n in range(4)
    ))  # fmt: skip
    assert sorted(a.status_code for a in answers) == [200, 409, 409, 409], [a.text for a in answers]
    [winner] = [a.json()["invalidReason"] for a in answers if a.status_code == 200]
    assert (await get(alice, "flag")).json()["invalidReason"] == winner
    updates = [
        m for m in (await alice.http.get("/v1/mutations", params={"targetId": "flag"})).json()["items"]
        if m["op"] == "note.update"
    ]  # fmt: skip
    assert len(updates) == 1


async def test_as_known_at_replays_the_journal_and_both_clocks_combine(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    await create(
        alice, "plan", "The quarterly plan targets 40 new customers.", validFrom="2026-01-01T00:00:00Z"
    )
    await asyncio.sleep(0.05)
    first = datetime.now(UTC)
    await asyncio.sleep(0.05)
    patched = await alice.http.patch(
        "/v1/knowledge/plan", json={"content": "The quarterly plan targets 55 new customers."}
    )
    assert patched.status_code == 200, patched.text
    await asyncio.sleep(0.05)
    second = datetime.now(UTC)
    await asyncio.sleep(0.05)
    assert (await alice.http.delete("/v1/knowledge/plan")).status_code == 204

    held = await get(alice, "plan", asKnownAt=iso(first))
    assert held.status_code == 200 and "40 new customers" in held.json()["content"]
    assert "55 new customers" in (await get(alice, "plan", asKnownAt=iso(second))).json()["content"]
    assert (await get(alice, "plan")).status_code == 404
    before = await get(alice, "plan", asKnownAt=iso(first - timedelta(seconds=5)))
    assert before.status_code == 404 and before.json()["error"]["field"] == "asKnownAt"
    # What we believed then about what was true in 2025 (it began in 2026): nothing.
    both = await get(alice, "plan", asKnownAt=iso(first), asOf="2025-06-01T00:00:00Z")
    assert both.status_code == 404 and both.json()["error"]["field"] == "asOf"
    assert (await get(alice, "plan", asKnownAt=iso(first), asOf="2026-02-01T00:00:00Z")).status_code == 200

    # Search and list as held then (a note deleted since is not searched; one still here is).
    await create(alice, "goal", "The yearly goal is 400 new customers.")
    await asyncio.sleep(0.05)
    marked = datetime.now(UTC)
    await asyncio.sleep(0.05)
    await alice.http.patch("/v1/knowledge/goal", json={"content": "The yearly goal is 480 new customers."})
    hits = (
        await alice.http.post("/v1/search", json={"query": "yearly goal customers", "asKnownAt": iso(marked)})
    ).json()
    assert [(h["node"]["id"], h["node"]["content"]) for h in hits["hits"]] == [
        ("goal", "The yearly goal is 400 new customers.")
    ]
    listed = (await alice.http.get("/v1/knowledge", params={"asKnownAt": iso(marked)})).json()["items"]
    assert [(n["id"], n["content"]) for n in listed] == [("goal", "The yearly goal is 400 new customers.")]
    early = (await alice.http.get("/v1/knowledge", params={"asKnownAt": iso(first)})).json()["items"]
    assert early == []  # plan is deleted now; goal was not yet written


async def test_another_users_facts_never_change_as_of_answers(make_caller: MakeCaller) -> None:
    alice, bob = await make_caller(), await make_caller()
    await create(
        alice, "port", "The staging database listens on port 5432.", validFrom="2025-01-01T00:00:00Z"
    )
    await create(
        alice, "port-new", "The staging database listens on port 6432.", validFrom="2026-06-01T00:00:00Z"
    )

    async def answers() -> tuple[Any, ...]:
        return (
            await found(alice, "staging database port", asOf="2026-01-01T00:00:00Z"),
            await found(alice, "staging database port"),
            (await get(alice, "port-new", asOf="2026-01-01T00:00:00Z")).json()["id"],
        )

    seen = await answers()
    assert seen == (["port"], ["port-new"], "port")
    for n in range(3):  # bob's versions of the same fact, with their own validity
        await create(bob, f"port-{n}", f"The staging database listens on port {7000 + n}.",
                     validFrom=f"202{4 + n}-01-01T00:00:00Z")  # fmt: skip
    await bob.http.post("/v1/knowledge/port-0/invalidate", json={"reason": "gone"})
    assert await answers() == seen
    assert (await get(bob, "port", asOf="2026-01-01T00:00:00Z")).status_code == 404


async def test_the_browser_timeline_shows_a_facts_versions_with_both_clocks(
    make_caller: MakeCaller, db: Database
) -> None:
    alice = await make_caller()
    await create(
        alice, "port", "The staging database listens on port 5432.", validFrom="2025-01-01T00:00:00Z"
    )
    await create(
        alice, "port-new", "The staging database listens on port 6432.", validFrom="2026-06-01T00:00:00Z"
    )
    await alice.http.post(
        "/v1/knowledge/port-new/invalidate", json={"reason": "moved", "at": "2026-09-01T00:00:00Z"}
    )
    rows = await db.read("explore/fact_timeline", userId=alice.user_id, id="port")
    timeline = [
        (r["id"], r["trueFrom"].iso_format()[:10], r["trueUntil"].iso_format()[:10], r["endedBecause"])
        for r in rows
    ]
    assert timeline == [
        ("port", "2025-01-01", "2026-06-01", None),
        ("port-new", "2026-06-01", "2026-09-01", "moved"),
    ]
    assert all(r["learned"] <= r["lastChanged"] for r in rows)


async def test_as_known_at_after_an_undo_and_a_correction(make_caller: MakeCaller) -> None:
    agent = await make_caller(Role.AGENT, agent_id="scribe")
    person = await make_caller(Role.HUMAN, user_id=agent.user_id)
    marks: list[str] = []

    async def mark() -> None:
        await asyncio.sleep(0.05)
        marks.append(iso(datetime.now(UTC)))
        await asyncio.sleep(0.05)

    await create(agent, "owner", "The payments service is owned by team Atlas.")
    await mark()
    await agent.http.patch(
        "/v1/knowledge/owner", json={"content": "The payments service is owned by team Borealis."}
    )
    await mark()
    [update] = [
        m for m in (await agent.http.get("/v1/mutations", params={"targetId": "owner"})).json()["items"]
        if m["op"] == "note.update"
    ]  # fmt: skip
    assert (await undo(agent, update["id"])).status_code == 200
    await mark()
    corrected = await person.http.patch(
        "/v1/knowledge/owner", json={"content": "The payments service is owned by team Cobalt."}
    )
    assert corrected.status_code == 200
    await mark()
    await person.http.post("/v1/knowledge/owner/invalidate", json={"reason": "team dissolved"})

    held = [(await get(agent, "owner", asKnownAt=at)).json() for at in marks]
    assert [h["content"].split()[-1] for h in held] == ["Atlas.", "Borealis.", "Atlas.", "Cobalt."]
    assert "validUntil" not in held[-1] and "validUntil" in (await get(agent, "owner")).json()
    # As held before it was invalidated, it was still true; as held now, it is not.
    found_then = await found(agent, "payments service owner team", asKnownAt=marks[-1])
    assert found_then == ["owner"] and await found(agent, "payments service owner team") == []
