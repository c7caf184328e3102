"""The Python client (ctxnet.client) against the real API and Neo4j: typed answers, errors
that carry the API's code and field, proposals, pages followed to the end, sync and async."""

from __future__ import annotations

import asyncio

import pytest

from ctxnet.client import AsyncClient, Client, Conflict, InvalidInput, NotFound, Proposed
from ctxnet.wire.knowledge.notes import NoteIn
from graph.core.principals import Role
from tests.integration.conftest import MakeCaller, correct_and_propose
from tests.support.servers import ApiProcess


@pytest.mark.smoke
async def test_the_sync_client_writes_reads_searches_and_pages(
    make_caller: MakeCaller, api: ApiProcess
) -> None:
    alice = await make_caller(Role.AGENT, agent_id="writer")
    assert (await alice.http.post("/v1/sessions", json={"id": "s-client"})).status_code == 201
    with Client(api.base_url, alice.key, session_id="s-client") as cn:
        assert (cn.me().user_id, cn.me().agent_id) == (alice.user_id, "writer")
        made = cn.create_note(
            NoteIn(id="billing", title="Billing", content="Billing calls auth.", type="fact")
        )
        assert made.created and made.node is not None and made.node.id == "billing"
        again = cn.create_note(
            {"id": "billing", "title": "Billing", "content": "Billing calls auth.", "type": "fact"}
        )
        assert not again.created
        batch = cn.create_notes(
            [
                {
                    "id": f"n{i}",
                    "title": f"Note {i}",
                    "content": f"Fact number {i} about queues.",
                    "type": "fact",
                    "dedupe": False,
                }
                for i in range(7)
            ]
        )
        assert [r.id for r in batch.results if r.outcome == "created"] == [f"n{i}" for i in range(7)]
        edge = cn.connect("billing", "dependsOn", "n0")
        assert (edge.created, edge.edge.type) == (True, "dependsOn")
        found = cn.search({"query": "who calls auth", "topK": 3})
        assert found.hits[0].node.id == "billing"
        # Pages followed to the end, none twice.
        ids = [n.id for n in cn.iter_notes(limit=3)]
        assert sorted(ids) == sorted(["billing", *[f"n{i}" for i in range(7)]]) and len(ids) == len(set(ids))
        # Errors carry the API's code and field.
        with pytest.raises(NotFound) as missing:
            cn.get_note("nothing")
        assert (missing.value.status, missing.value.code, missing.value.field) == (404, "not_found", "id")
        with pytest.raises(InvalidInput) as invalid:
            cn.create_note({"title": "x", "content": "y", "type": "opinion"})
        assert invalid.value.field == "type"
        with pytest.raises(Conflict) as taken:
            cn.create_note(
                {"id": "billing", "title": "Billing", "content": "Something else.", "type": "fact"}
            )
        assert taken.value.field == "id"
        # The session header reached the journal.
        [mutation] = cn.request_json("GET", "/v1/mutations", params={"targetId": "n0", "limit": 1})["items"]
        assert mutation["actor"]["sessionId"] == "s-client"


@pytest.mark.smoke
async def test_a_write_a_correction_holds_back_raises_proposed(
    make_caller: MakeCaller, api: ApiProcess
) -> None:
    person = await make_caller(Role.HUMAN)
    agent = await make_caller(Role.AGENT, agent_id="helper", user_id=person.user_id)
    await correct_and_propose(person, agent, "port", "The staging port is 7688.")
    with Client(api.base_url, agent.key) as cn, pytest.raises(Proposed) as held:
        cn.update_note("port", {"content": "The staging port is 7688 again."})
    assert held.value.status == 202 and held.value.proposal.id
    with Client(api.base_url, agent.key) as cn, pytest.raises(Proposed):  # the person's text, too
        cn.invalidate_note("port", "the port moved")
    with Client(api.base_url, person.key) as cn:
        ended = cn.invalidate_note("port", "the port moved", at="2026-01-01T00:00:00Z")
    assert ended.invalid_reason == "the port moved" and ended.valid_until == "2026-01-01T00:00:00.000+00:00"


async def test_the_async_client_wakes_up_and_pages(make_caller: MakeCaller, api: ApiProcess) -> None:
    alice = await make_caller(Role.AGENT, agent_id="planner")
    async with AsyncClient(api.base_url, alice.key) as cn:
        made = await asyncio.gather(
            *(
                cn.create_note(
                    {
                        "id": f"a{i}",
                        "title": f"A {i}",
                        "content": f"Async fact {i}.",
                        "type": "fact",
                        "dedupe": False,
                    }
                )
                for i in range(5)
            )
        )
        assert all(m.created for m in made)
        oriented = await cn.orient("ship the importer")
        assert oriented.sync_status is not None
        brief = await cn.brief("async facts", token_budget=500)
        assert brief.tokens <= 500
        ids = [n.id async for n in cn.iter_notes(limit=2)]
        assert sorted(ids) == [f"a{i}" for i in range(5)]
        with pytest.raises(NotFound):
            await cn.get_note("nothing")
