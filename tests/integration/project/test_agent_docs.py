"""Agents' docs, self-docs and instructions over HTTP against the real Neo4j: what an agent
finds about itself, ranked; the token budget of its instructions; replacing docs;
concurrent writers and other users."""

from __future__ import annotations

import asyncio

import pytest

from graph.core.principals import Role
from tests.integration.conftest import MakeCaller


async def test_self_docs_rank_capabilities_decisions_and_constraints(make_caller: MakeCaller) -> None:
    person = await make_caller(Role.HUMAN)
    docs = {
        "capabilities": [
            "Write SQL migrations for the orders database.",
            "Draft release notes from merged pull requests.",
            "Resize and compress product images.",
        ],
        "constraints": ["Never push to the main branch directly."],
        "baseInstructions": "You are the coder of the shop.",
    }
    put = await person.http.put("/v1/agents/coder/docs", json=docs)
    assert put.status_code == 200, put.text
    assert {k: put.json()[k] for k in docs} == docs
    decisions = [
        ("adr-db", "Orders live in PostgreSQL", "Store orders in PostgreSQL 16.", []),
        ("adr-img", "Images go to the CDN", "Product images are served from the CDN.", []),
        ("adr-rev", "Two reviewers", "Every change to billing needs two reviewers.", ["reviewer"]),
    ]
    for decision_id, title, text, agents in decisions:
        body = {"id": decision_id, "title": title, "context": "c", "decision": text, "agents": agents}
        assert (await person.http.post("/v1/decisions", json=body)).status_code == 201
    limit = {
        "title": "Schema changes are reversible",
        "description": "Every database migration has a down step.",
    }
    assert (await person.http.post("/v1/constraints", json=limit)).status_code == 201

    found = await person.http.get(
        "/v1/agents/coder/self-docs", params={"query": "how do I change the database schema", "topK": 2}
    )
    assert found.status_code == 200, found.text
    body = found.json()
    assert body["capabilities"][0]["text"] == docs["capabilities"][0]
    assert len(body["capabilities"]) == 2
    assert body["capabilities"][0]["score"] > body["capabilities"][1]["score"]
    # Only decisions that affect the coder: adr-rev names the reviewer alone.
    assert body["relevantDecisions"][0]["id"] == "adr-db"
    assert "adr-rev" not in [d["id"] for d in body["relevantDecisions"]]
    assert body["constraints"][0]["title"] == "Schema changes are reversible"
    assert {c["text"] for c in body["constraints"]} == {
        "Every database migration has a down step.", "Never push to the main branch directly.",
    }  # fmt: skip
    # Without a question: everything in its own order, unscored.
    plain = (await person.http.get("/v1/agents/coder/self-docs")).json()
    assert [c["text"] for c in plain["capabilities"]] == docs["capabilities"]
    assert all("score" not in c for c in plain["capabilities"])
    # A superseded decision is no longer relevant.
    newer = {
        "id": "adr-db2",
        "title": "Orders live in MySQL",
        "context": "c",
        "decision": "Store orders in MySQL.",
    }
    await person.http.post("/v1/decisions", json=newer)
    await person.http.post("/v1/decisions/adr-db/supersede", json={"byId": "adr-db2"})
    again = (await person.http.get("/v1/agents/coder/self-docs", params={"query": "orders database"})).json()
    assert "adr-db" not in [d["id"] for d in again["relevantDecisions"]]
    assert again["relevantDecisions"][0]["id"] == "adr-db2"

    # PUT replaces: the old lines are gone; the same docs again change nothing.
    smaller = {"capabilities": ["Only reviews."]}
    assert (await person.http.put("/v1/agents/coder/docs", json=smaller)).json()["capabilities"] == [
        "Only reviews."
    ]
    assert (await person.http.put("/v1/agents/coder/docs", json=smaller)).status_code == 200
    ops = [
        m["op"]
        for m in (await person.http.get("/v1/mutations", params={"targetId": "coder"})).json()["items"]
    ]
    assert ops == ["agent.docs", "agent.docs"]
    assert "baseInstructions" not in (await person.http.get("/v1/agents/coder/docs")).json()
    assert (await person.http.get("/v1/agents/nobody/docs")).json()["capabilities"] == []


async def test_instructions_stay_within_their_budget_newest_first(make_caller: MakeCaller) -> None:
    person = await make_caller(Role.HUMAN)
    for i in range(30):
        body = {
            "id": f"adr-{i:02d}",
            "title": f"Rule {i}",
            "context": "c",
            "decision": f"Service {i} " + "keeps its state in its own schema and never shares tables. " * 3,
            "date": f"2026-10-{i + 1:02d}",
        }
        assert (await person.http.post("/v1/decisions", json=body)).status_code == 201
    whole = (await person.http.get("/v1/agents/coder/instructions", params={"tokenBudget": 100_000})).json()
    assert len(whole["decisions"]) == 30 and whole["dropped"] == []
    small = (await person.http.get("/v1/agents/coder/instructions", params={"tokenBudget": 300})).json()
    assert small["tokens"] <= 300
    kept = [d["id"] for d in small["decisions"]]
    assert 0 < len(kept) < 30
    assert kept == [f"adr-{i:02d}" for i in range(29, 29 - len(kept), -1)]  # the newest
    assert sorted(kept + small["dropped"]) == sorted(d["id"] for d in whole["decisions"])
    assert small["text"].startswith("You are a development assistant.")
    bad = await person.http.get("/v1/agents/coder/instructions", params={"tokenBudget": 10})
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "tokenBudget"
    long_base = {"baseInstructions": "Be careful. " * 200}
    await person.http.put("/v1/agents/coder/docs", json=long_base)
    over = await person.http.get("/v1/agents/coder/instructions", params={"tokenBudget": 100})
    assert over.status_code == 422 and over.json()["error"]["field"] == "tokenBudget"


@pytest.mark.smoke
async def test_concurrent_doc_writes_and_other_users(make_caller: MakeCaller) -> None:
    alice = await make_caller(Role.HUMAN)
    bob = await make_caller(Role.HUMAN)
    versions = [{"capabilities": [f"Version {i} line {j}." for j in range(3)]} for i in range(5)]
    answers = await asyncio.gather(*(alice.http.put("/v1/agents/coder/docs", json=v) for v in versions))
    assert all(a.status_code == 200 for a in answers)
    final = (await alice.http.get("/v1/agents/coder/docs")).json()["capabilities"]
    assert final in [v["capabilities"] for v in versions]  # one whole version, never a mix
    found = (
        await alice.http.get("/v1/agents/coder/self-docs", params={"query": "version", "topK": 50})
    ).json()
    assert len(found["capabilities"]) == 3
    assert (await bob.http.get("/v1/agents/coder/docs")).json()["capabilities"] == []
    assert (await bob.http.get("/v1/agents/coder/self-docs", params={"query": "version"})).json()[
        "capabilities"
    ] == []
