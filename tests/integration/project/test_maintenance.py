"""Maintenance's tasks over HTTP against the real Neo4j: each check of validate-connections
finds a planted problem and repairs or reports it, archive-superseded archives only old
superseded decisions; a dry run changes nothing, a second run changes nothing, two runs at
once leave what one leaves, a person's correction holds an agent's run back, and another
user's data is neither reported nor changed. Consolidate, the command line and the
schedule: ``test_maintenance_runs.py``."""

from __future__ import annotations

import asyncio
import json

from graph.core.db import Database
from graph.core.principals import Role, Scope
from graph.project.maintenance import REPORT_LIMIT
from tests.integration.conftest import MakeCaller
from tests.integration.project.planting import (
    canonical,
    close_loop,
    connect,
    decisions,
    drop_planted,
    latest_mutation,
    maintain,
    notes,
    plant,
    status,
    supersede_across,
    superseded_days_ago,
    typed_edges,
    unlabel,
    unown,
)
from tests.support.jobs import finished


# --- validate-connections ------------------------------------------------------------------
async def test_validate_connections_repairs_and_reports_each_planted_problem(
    make_caller: MakeCaller, db: Database
) -> None:
    alice, bob = await make_caller(), await make_caller()
    await notes(alice, "a", "lost", "anon", "c", "p", "q", "r", "s1", "s2", "t1", "t2", "u", "v")
    await notes(bob, "B", "bp", "bq", "bx", "blost")
    await connect(alice, "a", "relatedTo", "lost")
    await connect(alice, "a", "dependsOn", "anon")
    await connect(alice, "p", "supersedes", "q")
    await connect(alice, "q", "supersedes", "r")
    await connect(alice, "t1", "supersedes", "s1")
    await connect(alice, "t2", "supersedes", "s2")
    await connect(alice, "s1", "conflictsWith", "s2")
    await connect(alice, "v", "supersedes", "u")
    assert (await alice.http.patch("/v1/knowledge/v", json={"status": "archived"})).status_code == 200
    # Bob's own problems: a loop and a dangling edge, which alice's runs must leave alone.
    await connect(bob, "bp", "supersedes", "bq")
    await connect(bob, "bx", "relatedTo", "blost")
    elements = [await unlabel(db, alice.user_id, "lost"), await unown(db, alice.user_id, "anon")]
    elements.append(await unlabel(db, bob.user_id, "blost"))
    try:
        await close_loop(db, bob.user_id, "bq", "bp")
        await plant(
            db,
            "MATCH (a:Knowledge {userId: $u, id: 'a'}), (b:Knowledge {userId: $bu, id: 'B'}) "
            "CREATE (a)-[:RELATED_TO {createdAt: datetime(), source: 'inferred', confidence: 1.0}]->(b)",
            u=alice.user_id, bu=bob.user_id,
        )  # fmt: skip
        await supersede_across(db, bob.user_id, "B", alice.user_id, "c")
        await close_loop(db, alice.user_id, "r", "p")  # the newest edge of the loop p > q > r > p
        bobs_before = await typed_edges(db, bob.user_id)

        # A dry run reports everything and changes nothing.
        before, journal_before = await typed_edges(db, alice.user_id), await latest_mutation(alice)
        dry = await maintain(alice.http, "validate-connections", dryRun=True)
        report = dry["report"]
        assert report["dryRun"] is True
        assert sorted(report["dangling"], key=canonical) == sorted([
            {"sourceId": "a", "type": "relatedTo", "targetId": "lost", "problem": "dangling"},
            {"sourceId": "a", "type": "dependsOn", "targetId": None, "problem": "dangling"},
        ], key=canonical)  # fmt: skip
        assert sorted(report["acrossUsers"], key=canonical) == sorted([
            {"sourceId": "a", "type": "relatedTo", "targetId": None, "problem": "acrossUsers"},
            {"sourceId": None, "type": "supersedes", "targetId": "c", "problem": "acrossUsers"},
        ], key=canonical)  # fmt: skip
        assert report["supersedeLoops"] == [{
            "notes": ["p", "q", "r"], "newestEdge": {"sourceId": "r", "type": "supersedes", "targetId": "p"},
            "broken": True,
        }]  # fmt: skip
        assert report["supersededConflicts"] == [{"sourceId": "s1", "targetId": "s2"}]
        assert report["supersededByArchived"] == [{"id": "u", "supersededBy": ["v"]}]
        assert report["statusesRestored"] == ["c", "p"] and report["heldBack"] == []
        assert dry["counts"] == {
            "dangling": 2, "acrossUsers": 2, "supersedeLoops": 1, "supersededConflicts": 1,
            "supersededByArchived": 1, "removed": 5, "statusesRestored": 2, "heldBack": 0,
        }  # fmt: skip
        assert await typed_edges(db, alice.user_id) == before
        assert await latest_mutation(alice) == journal_before
        # Nothing of bob's is in alice's report, not even an id.
        assert not {"B", "bp", "bq", "bx", "blost"} & set(json.dumps(report).replace('"', " ").split())

        # The run removes what must go and puts the statuses right.
        done = await maintain(alice.http, "validate-connections")
        assert done["counts"] == dry["counts"] and done["report"]["removed"] == report["removed"]
        assert {e["other"] for e in await typed_edges(db, alice.user_id) if e["id"] == "a"} == {"-"}
        assert [await status(alice, n) for n in ("c", "p", "q", "r", "s1", "u")] == [
            "active", "active", "superseded", "superseded", "superseded", "superseded",
        ]  # fmt: skip
        # Journaled as the edge service journals a removal, by the caller.
        [disconnect] = (await alice.http.get("/v1/mutations", params={"targetId": "r supersedes p"})).json()[
            "items"
        ]
        assert disconnect["op"] == "edge.disconnect" and disconnect["before"]["type"] == "supersedes"
        assert disconnect["actor"]["role"] == "human"
        flipped = (await alice.http.get("/v1/mutations", params={"targetId": "c"})).json()["items"][0]
        assert (flipped["op"], flipped["before"], flipped["after"]) == (
            "note.status", {"status": "superseded"}, {"status": "active"},
        )  # fmt: skip

        # A second run changes nothing; what a person decides is still reported.
        journal_after = await latest_mutation(alice)
        again = await maintain(alice.http, "validate-connections")
        assert again["counts"] == {
            "dangling": 0, "acrossUsers": 0, "supersedeLoops": 0, "supersededConflicts": 1,
            "supersededByArchived": 1, "removed": 0, "statusesRestored": 0, "heldBack": 0,
        }  # fmt: skip
        assert await latest_mutation(alice) == journal_after
        # Bob's loop and dangling edge are as they were (only the edges alice's notes had to
        # his note are gone with alice's repair).
        assert [e for e in await typed_edges(db, bob.user_id) if e["id"] != "B"] == [
            e for e in bobs_before if e["id"] != "B"
        ]
        bobs = await maintain(bob.http, "validate-connections", dryRun=True)
        assert (bobs["counts"]["supersedeLoops"], bobs["counts"]["dangling"]) == (1, 1)
    finally:
        await drop_planted(db, elements)


async def test_a_persons_correction_holds_back_an_agents_repair(
    make_caller: MakeCaller, db: Database
) -> None:
    person, other = await make_caller(), await make_caller()
    agent = await make_caller(Role.AGENT, agent_id="janitor", user_id=person.user_id)
    body = {"id": "w", "title": "Port", "content": "The port is 8080.", "type": "fact", "dedupe": False}
    assert (await agent.http.post("/v1/knowledge", json=body)).status_code == 201
    # A person corrects the status the agent wrote (and then sets it back: the correction holds).
    assert (await person.http.patch("/v1/knowledge/w", json={"status": "archived"})).status_code == 200
    assert (await person.http.patch("/v1/knowledge/w", json={"status": "active"})).status_code == 200
    [correction] = (await person.http.get("/v1/corrections", params={"targetId": "w"})).json()["items"]
    await notes(other, "O")
    await supersede_across(db, other.user_id, "O", person.user_id, "w")

    held = await maintain(agent.http, "validate-connections")
    assert held["counts"]["removed"] == 0 and held["counts"]["heldBack"] == 1
    assert held["report"]["heldBack"] == [{
        "sourceId": None, "type": "supersedes", "targetId": "w", "problem": "acrossUsers", "noteId": "w",
        "correctionId": correction["id"],
    }]  # fmt: skip
    assert await status(person, "w") == "superseded"
    # The person's own run repairs it.
    done = await maintain(person.http, "validate-connections")
    assert done["counts"]["removed"] == 1 and done["report"]["statusesRestored"] == ["w"]
    assert await status(person, "w") == "active"


async def test_two_runs_at_once_leave_what_one_run_leaves(make_caller: MakeCaller, db: Database) -> None:
    alice = await make_caller()
    await notes(alice, "a", "b", "c", "lost1", "lost2")
    for target in ("lost1", "lost2", "b"):
        await connect(alice, "a", "relatedTo", target)
    await connect(alice, "b", "supersedes", "c")
    elements = [await unlabel(db, alice.user_id, "lost1"), await unlabel(db, alice.user_id, "lost2")]
    try:
        await close_loop(db, alice.user_id, "c", "b")
        starts = await asyncio.gather(
            *(alice.http.post("/v1/maintenance/validate-connections") for _ in range(2))
        )
        # One live job per user and task: the same job twice, or a second run after the first.
        jobs = [await finished(alice.http, job_id) for job_id in sorted({s.json()["jobId"] for s in starts})]
        assert all(j["status"] == "done" for j in jobs)
        assert sorted(j["counts"]["removed"] for j in jobs) in ([3], [0, 3])
        ops = [m["op"] for m in (await alice.http.get("/v1/mutations", params={"limit": 50})).json()["items"]]
        assert ops.count("edge.disconnect") == 3
        assert [e["other"] for e in await typed_edges(db, alice.user_id) if e["id"] == "a"] == ["b"]
    finally:
        await drop_planted(db, elements)


# --- archive-superseded ------------------------------------------------------------------------
async def test_archive_superseded_archives_only_old_superseded_decisions(
    make_caller: MakeCaller, db: Database
) -> None:
    alice, bob = await make_caller(), await make_caller()
    await notes(alice, "d-old", "d-recent", "d-active", "f-old", "new1", "new2")
    await decisions(db, alice.user_id, "d-old", "d-recent", "d-active")
    await connect(alice, "new1", "supersedes", "d-old")
    await connect(alice, "new2", "supersedes", "d-recent")
    await connect(alice, "new1", "supersedes", "f-old")  # a fact, not a decision
    await superseded_days_ago(db, alice.user_id, "new1", "d-old", 100)
    await superseded_days_ago(db, alice.user_id, "new1", "f-old", 100)
    # Bob's old superseded decision stays as it is.
    await notes(bob, "bd", "bnew")
    await decisions(db, bob.user_id, "bd")
    await connect(bob, "bnew", "supersedes", "bd")
    await superseded_days_ago(db, bob.user_id, "bnew", "bd", 400)

    journal_before = await latest_mutation(alice)
    dry = await maintain(alice.http, "archive-superseded", dryRun=True)
    assert dry["counts"] == {"candidates": 1, "archived": 1, "heldBack": 0}
    assert dry["report"]["archived"] == ["d-old"] and dry["report"]["olderThanDays"] == 90
    assert [c["id"] for c in dry["report"]["candidates"]] == ["d-old"]
    assert await status(alice, "d-old") == "superseded" and await latest_mutation(alice) == journal_before

    done = await maintain(alice.http, "archive-superseded")
    assert done["counts"] == {"candidates": 1, "archived": 1, "heldBack": 0}
    assert [await status(alice, n) for n in ("d-old", "d-recent", "d-active", "f-old")] == [
        "archived", "superseded", "active", "superseded",
    ]  # fmt: skip
    [archived] = (await alice.http.get("/v1/mutations", params={"targetId": "d-old", "limit": 1})).json()[
        "items"
    ]
    assert (archived["op"], archived["before"], archived["after"]) == (
        "note.update", {"status": "superseded"}, {"status": "archived"},
    )  # fmt: skip
    again = await maintain(alice.http, "archive-superseded")
    assert again["counts"] == {"candidates": 0, "archived": 0, "heldBack": 0}
    # A younger age reaches the recent one too.
    younger = await maintain(alice.http, "archive-superseded", olderThanDays=0)
    assert younger["report"]["archived"] == ["d-recent"]
    # The archive is undone like any status update.
    undone = await alice.http.post(f"/v1/mutations/{archived['id']}/undo")
    assert undone.status_code == 200, undone.text
    assert await status(alice, "d-old") == "superseded"
    assert await status(bob, "bd") == "superseded"


async def test_archive_leaves_a_status_a_person_corrected_to_a_person(
    make_caller: MakeCaller, db: Database
) -> None:
    person = await make_caller()
    agent = await make_caller(Role.AGENT, agent_id="janitor", user_id=person.user_id)
    body = {"id": "d", "title": "Use MySQL", "content": "We use MySQL.", "type": "decision", "dedupe": False}
    assert (await agent.http.post("/v1/knowledge", json=body)).status_code == 201
    assert (await person.http.patch("/v1/knowledge/d", json={"status": "archived"})).status_code == 200
    assert (await person.http.patch("/v1/knowledge/d", json={"status": "active"})).status_code == 200
    await notes(person, "pg")
    await decisions(db, person.user_id, "d")
    await connect(person, "pg", "supersedes", "d")
    await superseded_days_ago(db, person.user_id, "pg", "d", 200)
    [correction] = (await person.http.get("/v1/corrections", params={"targetId": "d"})).json()["items"]

    held = await maintain(agent.http, "archive-superseded")
    assert held["counts"] == {"candidates": 1, "archived": 0, "heldBack": 1}
    assert held["report"]["heldBack"] == [{"id": "d", "correctionId": correction["id"]}]
    assert await status(person, "d") == "superseded"
    assert (await maintain(person.http, "archive-superseded"))["report"]["archived"] == ["d"]


async def test_two_archive_runs_at_once_archive_once(make_caller: MakeCaller, db: Database) -> None:
    alice = await make_caller()
    await notes(alice, "d1", "d2", "n")
    await decisions(db, alice.user_id, "d1", "d2")
    for old in ("d1", "d2"):
        await connect(alice, "n", "supersedes", old)
        await superseded_days_ago(db, alice.user_id, "n", old, 120)
    starts = await asyncio.gather(*(alice.http.post("/v1/maintenance/archive-superseded") for _ in range(2)))
    # One live job per user and task: the second start answers the first's job, unless that
    # one had ended already; then the second run finds nothing left to archive.
    ids = sorted({s.json()["jobId"] for s in starts})
    jobs = [await finished(alice.http, job_id) for job_id in ids]
    assert sorted(j["counts"]["archived"] for j in jobs) in ([2], [0, 2])
    ops = [m["op"] for m in (await alice.http.get("/v1/mutations", params={"limit": 50})).json()["items"]]
    assert ops.count("note.update") == 2


# --- the API's rules -----------------------------------------------------------------------------
async def test_input_is_checked_and_scoped_keys_are_refused(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    unknown = await alice.http.post("/v1/maintenance/defragment")
    assert unknown.status_code == 404 and unknown.json()["error"]["field"] == "task"
    negative = await alice.http.post("/v1/maintenance/archive-superseded", json={"olderThanDays": -1})
    assert negative.status_code == 422 and negative.json()["error"]["field"] == "olderThanDays"
    misplaced = await alice.http.post("/v1/maintenance/consolidate", json={"olderThanDays": 3})
    assert misplaced.status_code == 422 and misplaced.json()["error"]["field"] == "olderThanDays"
    typo = await alice.http.post("/v1/maintenance/consolidate", json={"dryrun": True})
    assert typo.status_code == 422 and typo.json()["error"]["field"] == "dryrun"
    assert (await alice.http.post("/v1/maintenance/consolidate")).status_code == 202  # no body: defaults
    scoped = await make_caller(Role.AGENT, agent_id="s", user_id=alice.user_id, scope=Scope(tags=("x",)))
    refused = await scoped.http.post("/v1/maintenance/validate-connections", json={"dryRun": True})
    assert refused.status_code == 403, refused.text


async def test_a_large_report_is_cut_and_says_so(make_caller: MakeCaller, db: Database) -> None:
    alice = await make_caller()
    await notes(alice, "hub", "lost")
    await plant(
        db,
        "MATCH (h:Knowledge {userId: $u, id: 'hub'}), (l:Knowledge {userId: $u, id: 'lost'}) "
        "UNWIND range(1, $n) AS i CREATE (h)-[:RELATED_TO {createdAt: datetime(), source: 'inferred'}]->(l)",
        u=alice.user_id, n=REPORT_LIMIT + 5,
    )  # fmt: skip
    elements = [await unlabel(db, alice.user_id, "lost")]
    try:
        dry = await maintain(alice.http, "validate-connections", dryRun=True)
        assert dry["counts"]["dangling"] == REPORT_LIMIT + 5
        assert len(dry["report"]["dangling"]) == REPORT_LIMIT and dry["report"]["truncated"] is True
        done = await maintain(alice.http, "validate-connections")
        assert done["counts"]["removed"] == REPORT_LIMIT + 5
        assert (await maintain(alice.http, "validate-connections"))["counts"]["removed"] == 0
    finally:
        await drop_planted(db, elements)
