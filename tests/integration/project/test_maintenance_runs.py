"""Maintenance as it runs outside one request, against the real Neo4j: consolidate as a job
that walks several threads (on an API with every insight kept), a task from the command
line, and the schedule running a due task once across workers (the tasks themselves:
``test_maintenance.py``)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from graph.core.db import Database
from graph.project.maintenance import SCHEDULE_AGENT
from tests.integration.conftest import MakeCaller, inspect
from tests.integration.project.planting import (
    connect,
    drop_planted,
    maintain,
    notes,
    typed_edges,
    unlabel,
)
from tests.support.jobs import finished
from tests.support.servers import ApiProcess, running_api


# --- consolidate -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def lenient_api(neo4j_server: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiProcess]:
    """An API whose consolidation keeps insights above 0.7: the offline rules extractor's
    (0.72-0.75) qualify, so consolidation runs without an LLM."""
    env = {"CTXNET_API_KEY_CACHE_SECONDS": "0", "CTXNET_INSIGHT_CONSOLIDATE_ABOVE": "0.7"}
    with running_api(tmp_path_factory.mktemp("lenient-api") / "api.log", env) as process:
        yield process


async def test_consolidate_visits_every_thread_with_insights_to_keep(
    make_caller: MakeCaller, lenient_api: ApiProcess
) -> None:
    alice = await make_caller()
    http = alice.client(lenient_api.base_url)
    said = {
        "t1": ["I prefer green tea every morning.", "We decided to use Postgres for the ledger."],
        "t2": ["My role is staff engineer at the harbour office."],
        "t3": ["How do I rotate the signing keys?"],  # a question (0.65): nothing to keep
    }
    for thread_id, lines in said.items():
        assert (await http.post("/v1/threads", json={"id": thread_id, "topic": thread_id})).status_code == 201
        messages = {"messages": [{"role": "user", "content": line} for line in lines]}
        assert (await http.post(f"/v1/threads/{thread_id}/messages", json=messages)).status_code == 201
        extracted = await finished(
            http, (await http.post(f"/v1/threads/{thread_id}/extract")).json()["jobId"]
        )
        assert extracted["status"] == "done"

    dry = await maintain(http, "consolidate", dryRun=True)
    assert dry["counts"] == {"threads": 2, "insights": 3}
    assert dry["report"]["threads"] == [{"threadId": "t1", "insights": 2}, {"threadId": "t2", "insights": 1}]
    assert (await http.get("/v1/knowledge")).json()["items"] == []

    # Two runs at once: the notes are made once.
    starts = await asyncio.gather(*(http.post("/v1/maintenance/consolidate") for _ in range(2)))
    jobs = [await finished(http, job_id) for job_id in sorted({s.json()["jobId"] for s in starts})]
    assert all(j["status"] == "done" for j in jobs), jobs
    assert sum(j["counts"]["created"] for j in jobs) == 3
    made = (await http.get("/v1/knowledge")).json()["items"]
    assert len(made) == 3 and {n["source"] for n in made} == {"conversation"}
    assert {n["sourceRef"] for n in made} == {"thread:t1", "thread:t2"}
    again = await maintain(http, "consolidate")
    assert again["counts"] == {"threads": 0, "insights": 0, "consolidated": 0, "created": 0, "updated": 0}


# --- the command line ------------------------------------------------------------------------
async def test_the_command_line_runs_a_task_and_prints_its_report(
    make_caller: MakeCaller, db: Database
) -> None:
    alice = await make_caller()
    await notes(alice, "a", "lost")
    await connect(alice, "a", "relatedTo", "lost")
    elements = [await unlabel(db, alice.user_id, "lost")]

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "ctxnet", "maintenance", *args, "--user", alice.user_id],
            capture_output=True, text=True, timeout=180,
        )  # fmt: skip

    try:
        dry = await asyncio.to_thread(run, "validate-connections", "--dry-run")
        assert dry.returncode == 0, dry.stderr
        printed = json.loads(dry.stdout)
        assert printed["counts"]["dangling"] == 1 and printed["report"]["dryRun"] is True
        assert [e["other"] for e in await typed_edges(db, alice.user_id) if e["id"] == "a"] == ["lost"]
        done = await asyncio.to_thread(run, "validate-connections")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["counts"]["removed"] == 1
        [removal] = (await alice.http.get("/v1/mutations", params={"limit": 1})).json()["items"]
        assert removal["op"] == "edge.disconnect"
        assert (removal["actor"]["role"], removal["actor"]["agentId"]) == ("system", "cli")
        archive = await asyncio.to_thread(run, "archive-superseded", "--older-than-days", "30")
        assert archive.returncode == 0 and json.loads(archive.stdout)["report"]["olderThanDays"] == 30
        wrong = await asyncio.to_thread(run, "defragment")
        assert wrong.returncode == 1 and "no maintenance task" in wrong.stderr
    finally:
        await drop_planted(db, elements)


# --- the schedule ------------------------------------------------------------------------------
async def test_the_schedule_runs_a_due_task_once_across_workers(
    make_caller: MakeCaller, db: Database, tmp_path: Path
) -> None:
    alice = await make_caller()
    await notes(alice, "a", "lost")
    await connect(alice, "a", "relatedTo", "lost")
    elements = [await unlabel(db, alice.user_id, "lost")]
    # Two workers, each with its own schedule, looking five times a second; validation
    # hourly, for this test's user only (the Neo4j is shared with other tests).
    env = {
        "CTXNET_MAINTENANCE_VALIDATE_EVERY_HOURS": "1",
        "CTXNET_MAINTENANCE_TICK_SECONDS": "0.2",
        "CTXNET_MAINTENANCE_USERS": json.dumps([alice.user_id]),
    }
    api = ApiProcess(tmp_path / "api.log", env, workers=2).start()
    try:
        await asyncio.to_thread(api.wait_ready)
        query = (
            "MATCH (j:Job {userId: $u}) WHERE j.kind = 'maintenance:validate-connections' "
            "RETURN j.id AS id, j.status AS status"
        )
        for _ in range(600):
            jobs = await inspect(db, query, u=alice.user_id)
            if jobs and all(j["status"] == "done" for j in jobs):
                break
            await asyncio.sleep(0.1)
        await asyncio.sleep(1.5)  # more ticks of both workers: none may run it again
        [job] = await inspect(db, query, u=alice.user_id)
        shown = (await alice.http.get(f"/v1/jobs/{job['id']}")).json()
        assert shown["status"] == "done" and shown["counts"]["removed"] == 1, shown
        [removal] = (await alice.http.get("/v1/mutations", params={"limit": 1})).json()["items"]
        assert removal["op"] == "edge.disconnect"
        assert (removal["actor"]["role"], removal["actor"]["agentId"]) == ("system", SCHEDULE_AGENT)
    finally:
        api.stop()
        await drop_planted(db, elements)
