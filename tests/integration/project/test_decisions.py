"""Architecture decisions, patterns and constraints over HTTP against the real Neo4j: record,
read, supersede (statuses, chains, loops), instructions that change at once, the
conversations a decision is announced in (once), concurrency and other users."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from graph.core.db import Database
from graph.core.principals import Role
from tests.integration.conftest import Caller, MakeCaller, inspect
from tests.support.jobs import run_job
from tests.support.servers import ApiProcess, running_api

NOTICE = "[CONTEXT UPDATE] New architectural decision may affect this conversation: "


def adr(decision_id: str, title: str, decision: str, **more: Any) -> dict[str, Any]:
    return {
        "id": decision_id,
        "title": title,
        "context": more.pop("context", "We need to choose."),
        "decision": decision,
        "consequences": more.pop("consequences", ["Everyone follows it."]),
    } | more


async def instructions(caller: Caller, agent: str) -> dict[str, Any]:
    answer = await caller.http.get(f"/v1/agents/{agent}/instructions")
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


@pytest.mark.smoke
async def test_record_read_supersede_and_the_instructions_follow(make_caller: MakeCaller) -> None:
    person = await make_caller(Role.HUMAN)
    for agent, base in (("coder", "You write the code."), ("reviewer", "You review changes.")):
        put = await person.http.put(f"/v1/agents/{agent}/docs", json={"baseInstructions": base})
        assert put.status_code == 200, put.text

    pg = adr(
        "adr-1", "Orders live in PostgreSQL", "Store orders in PostgreSQL 16.",
        context="Orders need transactions.", consequences=["Run migrations with Alembic.", "No MongoDB."],
        date="2026-11-02", tags=["storage"],
    )  # fmt: skip
    made = await person.http.post("/v1/decisions", json=pg)
    assert made.status_code == 201, made.text
    body = made.json()
    decision = body["decision"]
    assert (decision["kind"], decision["status"], decision["date"], decision["agents"]) == (
        "decision", "active", "2026-11-02", [],
    )  # fmt: skip
    assert decision["consequences"] == ["Run migrations with Alembic.", "No MongoDB."]
    assert body["refreshedAgents"] == ["coder", "reviewer"]  # it names none: every agent
    # The same decision again: 200, and nobody is told again.
    again = await person.http.post("/v1/decisions", json=pg)
    assert again.status_code == 200 and again.json()["refreshedAgents"] == []
    assert again.json()["decision"] == decision
    # The same id with another decision is a conflict, not an overwrite.
    other = await person.http.post("/v1/decisions", json=pg | {"decision": "Store orders in MySQL."})
    assert other.status_code == 409 and other.json()["error"]["field"] == "id"
    other = await person.http.post("/v1/decisions", json=pg | {"consequences": ["Something else."]})
    assert other.status_code == 409

    coder = await instructions(person, "coder")
    assert coder["text"] == (
        "You write the code.\n\nRespect these architectural decisions:\n"
        "- Orders live in PostgreSQL: Store orders in PostgreSQL 16.\n\n"
        "When in doubt about approaches, query the project documentation."
    )
    assert [d["id"] for d in coder["decisions"]] == ["adr-1"] and coder["dropped"] == []
    assert coder["tokens"] <= coder["tokenBudget"] == 2000

    # A decision for the coder only.
    sqlite = adr(
        "adr-2", "Tests use SQLite", "Unit tests run against SQLite.", agents=["coder"], date="2026-11-10"
    )
    made = await person.http.post("/v1/decisions", json=sqlite)
    assert made.status_code == 201 and made.json()["refreshedAgents"] == ["coder"]
    assert [d["id"] for d in (await instructions(person, "coder"))["decisions"]] == ["adr-2", "adr-1"]
    assert [d["id"] for d in (await instructions(person, "reviewer"))["decisions"]] == ["adr-1"]

    # Superseding flips the status, and the old decision leaves every instruction at once.
    newer = adr("adr-3", "Orders live in CockroachDB", "Store orders in CockroachDB.", date="2026-11-20")
    assert (await person.http.post("/v1/decisions", json=newer)).status_code == 201
    before = (await instructions(person, "reviewer"))["revision"]
    superseded = await person.http.post("/v1/decisions/adr-1/supersede", json={"byId": "adr-3"})
    assert superseded.status_code == 200, superseded.text
    assert superseded.json()["decision"]["status"] == "superseded"
    assert superseded.json()["decision"]["supersededBy"] == ["adr-3"]
    assert superseded.json()["refreshedAgents"] == ["coder", "reviewer"]
    reviewer = await instructions(person, "reviewer")
    assert [d["id"] for d in reviewer["decisions"]] == ["adr-3"] and reviewer["revision"] != before
    assert "PostgreSQL" not in reviewer["text"] and "CockroachDB" in reviewer["text"]
    # Again: the same answer, nothing changes.
    repeat = await person.http.post("/v1/decisions/adr-1/supersede", json={"byId": "adr-3"})
    assert repeat.status_code == 200 and repeat.json()["refreshedAgents"] == []

    # A chain: adr-4 supersedes adr-3, which superseded adr-1.
    latest = adr("adr-4", "Orders live in Spanner", "Store orders in Spanner.", date="2026-11-25")
    await person.http.post("/v1/decisions", json=latest)
    assert (
        await person.http.post("/v1/decisions/adr-3/supersede", json={"byId": "adr-4"})
    ).status_code == 200
    middle = (await person.http.get("/v1/decisions/adr-3")).json()
    assert (middle["status"], middle["supersededBy"], middle["supersedes"]) == (
        "superseded",
        ["adr-4"],
        ["adr-1"],
    )
    # A loop would hide every decision in it: refused, nothing changed.
    loop = await person.http.post("/v1/decisions/adr-4/supersede", json={"byId": "adr-1"})
    assert loop.status_code == 409
    itself = await person.http.post("/v1/decisions/adr-4/supersede", json={"byId": "adr-4"})
    assert itself.status_code == 409 and itself.json()["error"]["field"] == "byId", itself.text
    assert (await person.http.get("/v1/decisions/adr-4")).json()["status"] == "active"

    listed = (await person.http.get("/v1/decisions")).json()["items"]
    assert [d["id"] for d in listed] == ["adr-4", "adr-3", "adr-2", "adr-1"]  # newest date first
    active = (await person.http.get("/v1/decisions", params={"status": "active"})).json()["items"]
    assert [d["id"] for d in active] == ["adr-4", "adr-2"]
    mine = (await person.http.get("/v1/decisions", params={"agentId": "reviewer", "status": "active"})).json()
    assert [d["id"] for d in mine["items"]] == ["adr-4"]
    page = (await person.http.get("/v1/decisions", params={"limit": 3})).json()
    rest = (await person.http.get("/v1/decisions", params={"limit": 3, "cursor": page["nextCursor"]})).json()
    assert [d["id"] for d in page["items"] + rest["items"]] == [d["id"] for d in listed]
    assert "nextCursor" not in rest

    # A decision is a knowledge note: a note can depend on it, and search finds it.
    note = await person.http.post(
        "/v1/knowledge",
        json={
            "id": "orders-api",
            "title": "Orders API",
            "content": "The orders API writes orders.",
            "type": "fact",
        },
    )
    assert note.status_code == 201
    edge = await person.http.post(
        "/v1/knowledge/orders-api/connections", json={"type": "dependsOn", "targetId": "adr-4"}
    )
    assert edge.status_code == 201, edge.text
    found = (
        await person.http.post("/v1/search", json={"query": "where are orders stored", "topK": 3})
    ).json()
    assert "adr-4" in [h["node"]["id"] for h in found["hits"]]
    # Each step is journaled.
    ops = [
        m["op"]
        for m in (await person.http.get("/v1/mutations", params={"targetId": "adr-1"})).json()["items"]
    ]
    assert ops == ["note.status", "project.record", "note.create"]
    assert (await person.http.get("/v1/decisions/orders-api")).status_code == 404  # a note, not a decision
    assert (await person.http.get("/v1/decisions/nothing")).status_code == 404


@pytest.mark.smoke
async def test_patterns_and_constraints(make_caller: MakeCaller) -> None:
    person = await make_caller(Role.HUMAN)
    made = await person.http.post(
        "/v1/patterns",
        json={
            "id": "repo-pattern",
            "title": "Repository per aggregate",
            "description": "Each aggregate has one repository.",
        },
    )
    assert made.status_code == 201, made.text
    assert (made.json()["kind"], made.json()["description"]) == (
        "pattern",
        "Each aggregate has one repository.",
    )
    limit = await person.http.post(
        "/v1/constraints",
        json={
            "title": "No network in tests",
            "description": "Tests never reach the internet.",
            "agents": ["coder"],
        },
    )
    assert limit.status_code == 201 and limit.json()["agents"] == ["coder"]
    assert [p["id"] for p in (await person.http.get("/v1/patterns")).json()["items"]] == ["repo-pattern"]
    assert len((await person.http.get("/v1/constraints")).json()["items"]) == 1
    assert (await person.http.get("/v1/decisions")).json()["items"] == []
    # An id one kind holds is not another kind's.
    clash = await person.http.post(
        "/v1/constraints",
        json={
            "id": "repo-pattern",
            "title": "Repository per aggregate",
            "description": "Each aggregate has one repository.",
        },
    )
    assert clash.status_code == 409
    # Bad input names its field; nothing is written.
    for body, field in (
        ({"title": " ", "description": "x"}, "title"),
        ({"title": "t", "description": "word " * 400}, "description"),
        ({"title": "t", "description": "d", "date": "yesterday"}, "date"),
        ({"title": "t", "description": "d", "agents": ["bad id!"]}, "agents.0"),
    ):
        bad = await person.http.post("/v1/patterns", json=body)
        assert bad.status_code == 422, (body, bad.text)
        assert field in bad.json()["error"]["field"], bad.json()
    assert len((await person.http.get("/v1/patterns")).json()["items"]) == 1


async def extracted(caller: Caller, thread_id: str) -> None:
    """Run the rule extractor on a thread and wait for its job."""
    job = await run_job(caller.http, f"/v1/threads/{thread_id}/extract", timeout=20.0)
    assert job["status"] == "done", job


async def thread(caller: Caller, thread_id: str, topic: str, *messages: str) -> None:
    made = await caller.http.post(
        "/v1/threads", json={"id": thread_id, "contextType": "planning", "topic": topic}
    )
    assert made.status_code == 201, made.text
    if messages:
        body = {"messages": [{"role": "user", "content": m} for m in messages]}
        assert (await caller.http.post(f"/v1/threads/{thread_id}/messages", json=body)).status_code == 201


async def gist_of(db: Database, user_id: str, thread_id: str) -> None:
    """Wait until the thread's gist holds its latest messages (it is embedded in the
    background, a moment after the append)."""
    for _ in range(300):
        rows = await inspect(
            db,
            "MATCH (t:Thread {userId: $user, id: $id}) RETURN t.embeddedSeq = t.messageCount AS done",
            user=user_id,
            id=thread_id,
        )
        if rows and rows[0]["done"]:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"the gist of {thread_id} was not refreshed")


async def notices(caller: Caller, thread_id: str) -> list[str]:
    items = (await caller.http.get(f"/v1/threads/{thread_id}/messages")).json()["items"]
    return [m["content"] for m in items if m["role"] == "system"]


@pytest.fixture(scope="module")
def indexed_api(neo4j_server: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiProcess]:
    """An API that finds a decision's threads through the shared vector indexes (the plan
    of users with many threads and insights), not exactly over the user's own."""
    env = {
        "CTXNET_API_KEY_CACHE_SECONDS": "0",
        "CTXNET_SEARCH_EXACT_MAX_NOTES": "0",
        "CTXNET_SEARCH_ANN_MAX_CANDIDATES": "1000000",
    }
    with running_api(tmp_path_factory.mktemp("indexed-api") / "api.log", env) as process:
        yield process


@pytest.mark.parametrize("plan", ["exact", "index"])
async def test_a_decision_is_announced_in_the_conversations_it_may_affect_once(
    make_caller: MakeCaller, db: Database, request: pytest.FixtureRequest, plan: str
) -> None:
    person = await make_caller(Role.HUMAN)
    coder = await make_caller(Role.AGENT, agent_id="coder", user_id=person.user_id)
    if plan == "index":
        base_url = request.getfixturevalue("indexed_api").base_url
        person.http, coder.http = person.client(base_url), coder.client(base_url)
    await thread(person, "t-topic", "Which database should store our orders?")
    await thread(person, "t-insight", "Weekly sync", "We decided to keep all orders in PostgreSQL.")
    await extracted(person, "t-insight")
    await thread(person, "t-session", "Release checklist for Friday")
    session = await coder.http.post("/v1/sessions", json={"topic": "release", "threadId": "t-session"})
    assert session.status_code == 201, session.text
    # Only its latest messages are about orders (never extracted): its gist, embedded in
    # the background after the append, is what is close.
    await thread(
        person, "t-messages", "Friday sync", "Let us store every order in PostgreSQL from now on.",
        "Yes: orders go into PostgreSQL.",
    )  # fmt: skip
    await gist_of(db, person.user_id, "t-messages")
    await thread(person, "t-far", "Team offsite in Lisbon: flights and hotel", "I prefer a window seat.")
    other = await make_caller(Role.HUMAN)  # another user's close thread is not theirs to hear of
    await thread(other, "t-topic", "Which database should store our orders?")

    decision = adr(
        "adr-db", "Orders are stored in PostgreSQL", "All orders are stored in PostgreSQL.", agents=["coder"]
    )
    made = await person.http.post("/v1/decisions", json=decision)
    assert made.status_code == 201, made.text
    told = {t["threadId"]: t for t in made.json()["notifiedThreads"]}
    assert set(told) == {"t-topic", "t-insight", "t-session", "t-messages"}, told
    assert told["t-session"]["bySession"] is True
    assert told["t-topic"]["threadSimilarity"] >= 0.7 and told["t-insight"]["insightSimilarity"] >= 0.7
    assert told["t-messages"]["threadSimilarity"] >= 0.7 and "insightSimilarity" not in told["t-messages"]
    for thread_id in told:
        assert await notices(person, thread_id) == [NOTICE + "Orders are stored in PostgreSQL"]
    assert await notices(person, "t-far") == []
    assert await notices(other, "t-topic") == []
    # A notice is a message like any other: each told thread's gist is made again, up to it.
    for thread_id in told:
        await gist_of(db, person.user_id, thread_id)
    # Recorded again (even at once, twice): nobody is told twice.
    twice = await asyncio.gather(*(person.http.post("/v1/decisions", json=decision) for _ in range(3)))
    assert [r.status_code for r in twice] == [200, 200, 200]
    assert all(r.json()["notifiedThreads"] == [] for r in twice)
    for thread_id in told:
        assert len(await notices(person, thread_id)) == 1
    # Browser shows where a decision was announced: its notices point at it.
    rows = await inspect(
        db,
        "MATCH (t:Thread)-[:HAS_MESSAGE]->(:Message)-[:ANNOUNCES]->(d:ArchitectureDecision {userId: $user})"
        " RETURN t.id AS thread ORDER BY thread",
        user=person.user_id,
    )
    assert [r["thread"] for r in rows] == sorted(told)
    # The notice is an ordinary message of the thread, journaled as the recording person's.
    appended = (
        await person.http.get("/v1/mutations", params={"targetId": told["t-topic"]["messageId"]})
    ).json()
    assert [(m["op"], m["actor"]["role"]) for m in appended["items"]] == [("message.append", "human")]


async def test_concurrent_records_of_one_user(make_caller: MakeCaller, db: Database) -> None:
    person = await make_caller(Role.HUMAN)
    await thread(person, "t-1", "Which message queue do we use?")
    same = adr("adr-q", "Kafka is the queue", "Every service publishes events to Kafka.")
    twins = [
        adr(f"adr-{i}", f"Queue rule {i}", f"Service {i} publishes events to Kafka topic {i}.")
        for i in range(6)
    ]
    answers: list[httpx.Response] = await asyncio.gather(
        *(person.http.post("/v1/decisions", json=same) for _ in range(4)),
        *(person.http.post("/v1/decisions", json=t) for t in twins),
    )
    assert sorted(r.status_code for r in answers[:4]) == [200, 200, 200, 201]
    assert all(r.status_code == 201 for r in answers[4:])
    rows = await inspect(
        db,
        "MATCH (n:Knowledge:ProjectContext:ArchitectureDecision) WHERE n.userId = $user RETURN count(n) AS n",
        user=person.user_id,
    )
    assert rows == [{"n": 7}]
    # Every notice in the thread is a different decision's, each once.
    told = await notices(person, "t-1")
    assert len(told) == len(set(told))
    assert len(told) == sum(any(t["threadId"] == "t-1" for t in r.json()["notifiedThreads"]) for r in answers)


async def test_other_users_and_scoped_keys(make_caller: MakeCaller) -> None:
    from graph.core.principals import Scope

    alice = await make_caller(Role.HUMAN)
    bob = await make_caller(Role.HUMAN)
    await alice.http.post("/v1/decisions", json=adr("adr-a", "Alice's rule", "Alice uses tabs."))
    await alice.http.put("/v1/agents/coder/docs", json={"baseInstructions": "Alice's coder."})
    assert (await bob.http.get("/v1/decisions/adr-a")).status_code == 404
    assert (await bob.http.get("/v1/decisions")).json()["items"] == []
    assert (await bob.http.post("/v1/decisions/adr-a/supersede", json={"byId": "adr-a2"})).status_code == 404
    bob_coder = await instructions(bob, "coder")
    assert bob_coder["decisions"] == [] and "Alice" not in bob_coder["text"]
    # Bob may use the same ids for his own.
    assert (
        await bob.http.post("/v1/decisions", json=adr("adr-a", "Bob's rule", "Bob uses spaces."))
    ).status_code == 201
    assert (await alice.http.get("/v1/decisions/adr-a")).json()["decision"] == "Alice uses tabs."
    scoped = await make_caller(Role.AGENT, agent_id="coder", user_id=alice.user_id, scope=Scope(tags=("x",)))
    for answer in (
        await scoped.http.get("/v1/decisions"),
        await scoped.http.post("/v1/decisions", json=adr("adr-s", "S", "S.")),
        await scoped.http.get("/v1/agents/coder/instructions"),
    ):
        assert answer.status_code == 403
