"""What the maintenance tests plant in a user's graph (straight in Neo4j, as no API call
would make it: edges to nothing, to another user's notes, loops, old supersedes), and the
calls they make to see what a run did."""

from __future__ import annotations

import json
import uuid
from typing import Any, LiteralString

import httpx

from graph.core.db import Database
from tests.integration.conftest import Caller, inspect
from tests.support.jobs import finished


async def maintain(http: httpx.AsyncClient, task: str, **body: Any) -> dict[str, Any]:
    """Run a task as a job and wait for it; the job (done)."""
    started = await http.post(f"/v1/maintenance/{task}", json=body)
    assert started.status_code == 202, started.text
    job = await finished(http, started.json()["jobId"])
    assert job["status"] == "done", job
    # The whole job in the message: one run on a fresh clone saw a done job without its report.
    assert job["kind"] == f"maintenance:{task}" and job.get("report", {}).get("task") == task, job
    return job


def canonical(item: Any) -> str:
    """A JSON value's one spelling, to sort lists of dicts by."""
    return json.dumps(item, sort_keys=True)


async def plant(db: Database, cypher: LiteralString, **params: Any) -> list[dict[str, Any]]:
    """What no API call can make (edges across users, loops, a note without its label):
    written with raw Cypher, as a fault or a bug elsewhere would leave it."""
    records, _, _ = await db.driver.execute_query(cypher, params, database_=db.database)
    return [record.data() for record in records]


async def notes(caller: Caller, *ids: str) -> None:
    items = [
        {"id": i, "title": f"Note {i}", "content": f"About {i}: {uuid.uuid4().hex}.", "type": "fact",
         "dedupe": False}
        for i in ids
    ]  # fmt: skip
    made = await caller.http.post("/v1/knowledge/batch", json={"items": items})
    assert made.status_code == 201, made.text


async def connect(caller: Caller, source: str, kind: str, target: str) -> None:
    made = await caller.http.post(
        f"/v1/knowledge/{source}/connections", json={"type": kind, "targetId": target}
    )
    assert made.status_code == 201, made.text


async def status(caller: Caller, note_id: str) -> str:
    answer = await caller.http.get(f"/v1/knowledge/{note_id}")
    assert answer.status_code == 200, answer.text
    return str(answer.json()["status"])


async def typed_edges(db: Database, user_id: str) -> list[dict[str, Any]]:
    """Every typed edge at the user's notes, and each note's status: a state to compare."""
    return await inspect(
        db,
        "MATCH (n:Knowledge {userId: $u}) "
        "OPTIONAL MATCH (n)-[r:RELATED_TO|DEPENDS_ON|SUPERSEDES|CONFLICTS_WITH]-(m) "
        "RETURN n.id AS id, n.status AS status, type(r) AS type, startNode(r) = n AS out, "
        "coalesce(m.id, '-') AS other ORDER BY id, type, out, other",
        u=user_id,
    )


async def latest_mutation(caller: Caller) -> str | None:
    items = (await caller.http.get("/v1/mutations", params={"limit": 1})).json()["items"]
    return items[0]["id"] if items else None


async def drop_planted(db: Database, elements: list[str]) -> None:
    """Delete nodes a test took out of every user's reach (no Knowledge label, no userId):
    forgetting their user cannot find them."""
    for element in elements:
        await plant(db, "MATCH (n) WHERE elementId(n) = $e DETACH DELETE n", e=element)


async def unlabel(db: Database, user_id: str, note_id: str) -> str:
    """The note loses its Knowledge label (as a bad import or a manual edit might do)."""
    [row] = await plant(
        db, "MATCH (n:Knowledge {userId: $u, id: $id}) REMOVE n:Knowledge RETURN elementId(n) AS e",
        u=user_id, id=note_id,
    )  # fmt: skip
    return str(row["e"])


async def unown(db: Database, user_id: str, note_id: str) -> str:
    """The note loses its userId."""
    [row] = await plant(
        db, "MATCH (n:Knowledge {userId: $u, id: $id}) REMOVE n.userId RETURN elementId(n) AS e",
        u=user_id, id=note_id,
    )  # fmt: skip
    return str(row["e"])


async def supersede_across(db: Database, by_user: str, by: str, user_id: str, note_id: str) -> None:
    """Another user's note supersedes one of the user's (and marks it superseded, as the
    edge write would)."""
    await plant(
        db,
        "MATCH (b:Knowledge {userId: $bu, id: $b}), (n:Knowledge {userId: $u, id: $n}) "
        "CREATE (b)-[:SUPERSEDES {createdAt: datetime(), source: 'inferred', confidence: 1.0}]->(n) "
        "SET n.status = 'superseded'",
        bu=by_user, b=by, u=user_id, n=note_id,
    )  # fmt: skip


async def close_loop(db: Database, user_id: str, source: str, target: str) -> None:
    """``source`` supersedes ``target``, closing a loop the API refuses to close."""
    await plant(
        db,
        "MATCH (a:Knowledge {userId: $u, id: $a}), (b:Knowledge {userId: $u, id: $b}) "
        "CREATE (a)-[:SUPERSEDES {createdAt: datetime(), source: 'inferred', confidence: 1.0}]->(b) "
        "SET b.status = 'superseded'",
        u=user_id, a=source, b=target,
    )  # fmt: skip


async def decisions(db: Database, user_id: str, *ids: str) -> None:
    """Mark notes as architecture decisions, as the decisions API stores them."""
    await plant(
        db,
        "MATCH (n:Knowledge {userId: $u}) WHERE n.id IN $ids SET n:ProjectContext, n.kind = 'decision'",
        u=user_id, ids=list(ids),
    )  # fmt: skip


async def superseded_days_ago(db: Database, user_id: str, by: str, note_id: str, days: int) -> None:
    await plant(
        db,
        "MATCH (:Knowledge {userId: $u, id: $by})-[r:SUPERSEDES]->(:Knowledge {userId: $u, id: $n}) "
        "SET r.createdAt = datetime() - duration({days: $days})",
        u=user_id, by=by, n=note_id, days=days,
    )  # fmt: skip
