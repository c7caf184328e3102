"""Which conversations hear of a new decision, over HTTP against the real Neo4j: a thread on
the migration a decision settles is told (issue 33's report), one that only shares its words
is not, and what another user stores never changes who is told."""

from __future__ import annotations

import asyncio
from typing import Any

from graph.core.db import Database
from graph.core.principals import Role
from tests.integration.conftest import Caller, MakeCaller
from tests.integration.project.test_decisions import gist_of, notices, thread

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
