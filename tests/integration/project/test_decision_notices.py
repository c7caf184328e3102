"""Which conversations hear of a new decision, over HTTP against the real Neo4j: a thread on
the migration a decision settles is told (issue 33's report), one that only shares its words
is not, what another user stores never changes who is told, and a thread only the second model
(all-MiniLM-L6-v2) finds is told while the second model compares, not once it is disabled."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from graph.core.db import Database
from graph.core.principals import Role
from tests.integration.conftest import Caller, MakeCaller, inspect
from tests.integration.project.test_decisions import gist_of, notices, thread
from tests.support.servers import ApiProcess, running_api

NOTICE = "[CONTEXT UPDATE] New architectural decision may affect this conversation: "
POSTGRES = {
    "title": "Use PostgreSQL for all services",
    "context": "We run MySQL, MongoDB and PostgreSQL: three sets of backups and tooling.",
    "decision": "All services store their data in PostgreSQL 16.",
    "consequences": ["Migrate billing off MySQL."],
    "tags": ["database"],
}
BILLING = (
    "Migrating the billing service database to PostgreSQL",
    "We need to move billing off MySQL",
    "PostgreSQL 16 looks right for the billing schema: partitioning for invoices and JSONB for metadata.",
)
MEETUP = (
    "Talk proposal for the Berlin Postgres meetup",
    "I'd like to submit a talk to the Berlin Postgres meetup about how we test schema migrations.",
    "The call for papers wants a 200-word abstract and a short speaker bio.",
)
OTHERS = (
    ("Team offsite in Lisbon: flights and hotel", "I prefer a window seat.", "Hotel is near the river."),
    ("On-call swap over the holidays", "Can someone take my shift on the 24th?", "I'll swap for New Year's."),
    (
        "Browser caching of the landing page",
        "Static assets need a long max-age.",
        "index.html must not be cached.",
    ),
    ("Interview loop for the senior backend role", "We need a system design question.", "Ask about retries."),
)


async def billing_meetup_and_others(caller: Caller, db: Database, one_by_one: bool = False) -> None:
    """The billing migration, the meetup talk and :data:`OTHERS` as the caller's threads, each
    with its gist embedded (``one_by_one``: each in its own round of the background refresh,
    not all in one)."""
    made = [("billing", *BILLING), ("meetup", *MEETUP)]
    made += [(f"other-{i}", *texts) for i, texts in enumerate(OTHERS)]
    for thread_id, topic, *messages in made:
        await thread(caller, thread_id, topic, *messages)
        if one_by_one:
            await gist_of(db, caller.user_id, thread_id)
    for thread_id, *_ in made:
        await gist_of(db, caller.user_id, thread_id)


async def decide(caller: Caller, decision_id: str, body: dict[str, Any] = POSTGRES) -> dict[str, Any]:
    made = await caller.http.post("/v1/decisions", json={"id": decision_id} | body)
    assert made.status_code == 201, made.text
    return {t["threadId"]: t for t in made.json()["notifiedThreads"]}


async def test_a_thread_on_the_migration_hears_of_the_decision(make_caller: MakeCaller, db: Database) -> None:
    """Issue 33, as a new user tried it: one thread, its messages, then the decision 8 s later."""
    person = await make_caller(Role.HUMAN)
    await thread(person, "billing", *BILLING)
    await asyncio.sleep(8)
    await gist_of(db, person.user_id, "billing")  # embedded in the background, 2 s after the append
    told = await decide(person, "adr-pg")
    assert set(told) == {"billing"}, told
    assert told["billing"]["reason"] in ("similar", "standsOut")
    assert "mysql" in told["billing"].get("sharedTerms", []) or told["billing"]["reason"] == "similar"
    assert await notices(person, "billing") == [NOTICE + "Use PostgreSQL for all services"]
    # Recorded at once after the append, before the gist holds the messages: the topic's own
    # vector is close enough already.
    hasty = await make_caller(Role.HUMAN)
    await thread(hasty, "billing", *BILLING)
    assert set(await decide(hasty, "adr-pg")) == {"billing"}


async def test_a_near_miss_is_not_told(make_caller: MakeCaller, db: Database) -> None:
    """A Postgres meetup talk shares the decision's words, not its meaning: not told, whether
    it is the user's only thread or one among others (where the migration thread is told)."""
    alone = await make_caller(Role.HUMAN)
    await thread(alone, "meetup", *MEETUP)
    await gist_of(db, alone.user_id, "meetup")
    assert await decide(alone, "adr-pg") == {}
    assert await notices(alone, "meetup") == []

    person = await make_caller(Role.HUMAN)
    await billing_meetup_and_others(person, db)
    told = await decide(person, "adr-pg")
    assert set(told) == {"billing"}, told
    assert told["billing"]["standing"] >= 2.3


async def test_other_users_threads_never_change_who_is_told(make_caller: MakeCaller, db: Database) -> None:
    """Two users with the same threads record the same decision, one before and one after a
    third user stores many threads like theirs: the same threads are told, with the same figures
    to the last digit, though the first user's gists were embedded in one round and the
    second's one round each, beside the crowd's (a gist is embedded alone: bge-small's int8
    vector of a text would otherwise move with the texts of its batch, 0.15 of standing)."""
    first, second, crowd = [await make_caller(Role.HUMAN) for _ in range(3)]
    await billing_meetup_and_others(first, db)
    before = await decide(first, "adr-pg")
    # Many threads about moving to PostgreSQL, and near misses, in another user's memory.
    for i in range(30):
        topic, *messages = BILLING if i % 3 else MEETUP
        await thread(crowd, f"crowd-{i}", f"{topic} ({i})", *messages)
    await billing_meetup_and_others(second, db, one_by_one=True)
    await gist_of(db, crowd.user_id, "crowd-29")
    after = await decide(second, "adr-pg")
    assert set(before) == {"billing"}
    assert before == after
    assert await notices(crowd, "crowd-1") == []


#: bench/notify_pairs.py's yardstick: its data engineer's threads and one of her decisions.
YARDSTICK = Path(__file__).parents[3] / "bench" / "data" / "notify_pairs.json"


@pytest.fixture(scope="module")
def bge_only_api(neo4j_server: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiProcess]:
    """An API with the second model of decisions' notices disabled: bge-small alone."""
    env = {"CTXNET_API_KEY_CACHE_SECONDS": "0", "CTXNET_DECISION_NOTIFY_SECOND_MODEL": ""}
    with running_api(tmp_path_factory.mktemp("bge-only-api") / "api.log", env) as process:
        yield process


async def priya(caller: Caller, db: Database) -> dict[str, Any]:
    """The yardstick's priya: her 32 threads for ``caller``, each with its gists embedded; her
    decision on freshness, whose related threads bge-small alone ranks two of three."""
    [user] = [u for u in json.loads(YARDSTICK.read_text(encoding="utf-8"))["users"] if u["id"] == "priya"]
    for t in user["threads"]:
        made = await caller.http.post("/v1/threads", json={k: t[k] for k in ("id", "contextType", "topic")})
        assert made.status_code == 201, made.text
        added = await caller.http.post(f"/v1/threads/{t['id']}/messages", json={"messages": t["messages"]})
        assert added.status_code == 201, added.text
    for t in user["threads"]:
        await gist_of(db, caller.user_id, t["id"])
    [decision] = [d for d in user["decisions"] if d["id"] == "priya-d10"]
    return decision


async def test_a_thread_only_the_second_model_finds_is_told(
    make_caller: MakeCaller, db: Database, bge_only_api: ApiProcess
) -> None:
    """priya's decision "Freshness expectations for every mart" affects three of her threads:
    bge-small puts "Nobody noticed the stores table was three days stale" 2.07 standard
    deviations above her other threads (under the line, 2.3), MiniLM 3.8: told with both
    models, not by bge-small alone. An API with the second model disabled tells what
    bge-small alone tells, though her threads hold the second model's vectors."""
    person = await make_caller(Role.HUMAN)
    decision = await priya(person, db)
    [row] = await inspect(
        db,
        "MATCH (t:Thread {userId: $user}) "
        "RETURN count(t.notifyEmbedding) AS n, collect(DISTINCT t.notifyModel) AS m",
        user=person.user_id,
    )
    assert row == {"n": 32, "m": ["all-MiniLM-L6-v2-onnx-int8"]}
    body = {k: decision[k] for k in ("title", "context", "decision", "consequences", "tags")}
    alone = person.client(bge_only_api.base_url)
    without = await alone.post("/v1/decisions", json={"id": "adr-fresh-bge"} | body)
    assert without.status_code == 201, without.text
    by_bge = {t["threadId"] for t in without.json()["notifiedThreads"]}
    assert by_bge == {"priya-exec-yesterday", "priya-freshness-sla"}
    told = await decide(person, "adr-fresh", body)
    assert set(told) == set(decision["related"]) == by_bge | {"priya-stale-stores"}
    assert told["priya-stale-stores"]["reason"] == "standsOut"
    assert told["priya-stale-stores"]["standing"] >= 3.0
