"""A note's ``data``: a JSON payload kept exactly as sent, over HTTP against the real Neo4j.

Generated JSON values (hypothesis) come back equal, key order and integers kept, through
every path a note is written and read by; the bounds refuse what is past them with a 422
naming the field and write nothing; callers at once leave one journal entry per applied
write; an agent's change of a person's payload waits as a proposal."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxnet.wire.base import DATA_MAX_CHARS, DATA_MAX_DEPTH, compact_json
from graph.core.principals import Role
from tests.integration.conftest import Caller, MakeCaller

#: Any JSON value a client can send and read back: strings of any character but a lone
#: surrogate, integers within 64 bits, finite floats; nested a few levels.
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(exclude_categories=["Cs"]), max_size=20)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(st.characters(exclude_categories=["Cs"]), max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
).filter(lambda v: v is not None)  # null is "no payload"


def same(a: Any, b: Any) -> bool:
    """Equal as JSON, key order and the type of each number included."""
    return compact_json(a) == compact_json(b)


def note(n: int, data: Any) -> dict[str, Any]:
    return {"id": f"d{n}", "title": f"Payload {n}", "content": f"Payload note number {n} for searching.",
            "type": "fact", "dedupe": False, "data": data}  # fmt: skip


async def _read_everywhere(caller: Caller, node_id: str) -> list[Any]:
    """The note's ``data`` as get, list, search and a neighbourhood answer it."""
    got = (await caller.http.get(f"/v1/knowledge/{node_id}")).json()
    listed = (await caller.http.get("/v1/knowledge", params={"limit": 100})).json()["items"]
    found = await caller.http.post(
        "/v1/search", json={"query": "payload note searching", "mode": "fulltext", "topK": 10}
    )
    hits = [h["node"] for h in found.json()["hits"]]
    expanded = [e["node"] for e in found.json().get("expanded", [])]
    views = [
        got,
        *(n for n in listed if n["id"] == node_id),
        *(n for n in hits + expanded if n["id"] == node_id),
    ]
    assert len(views) >= 3, (node_id, len(views))
    return [v.get("data") for v in views]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values=st.lists(VALUES, min_size=3, max_size=3))
async def test_any_json_value_comes_back_exactly_everywhere(
    make_caller: MakeCaller, values: list[Any]
) -> None:
    alice = await make_caller()
    one, batched, patched = values
    made = await alice.http.post("/v1/knowledge", json=note(0, one))
    assert made.status_code == 201, made.text
    assert same(made.json()["node"]["data"], one)
    batch = await alice.http.post("/v1/knowledge/batch", json={"items": [note(1, batched), note(2, None)]})
    assert batch.status_code == 201, batch.text
    for node_id, value in (("d0", one), ("d1", batched)):
        for seen in await _read_everywhere(alice, node_id):
            assert same(seen, value), (node_id, seen, value)
    assert "data" not in (await alice.http.get("/v1/knowledge/d2")).json()
    # A connection makes d1 an expansion of d0's neighbourhood: it carries its payload too.
    link = await alice.http.post("/v1/knowledge/d0/connections", json={"type": "relatedTo", "targetId": "d1"})
    assert link.status_code == 201, link.text
    around = await alice.http.post(
        "/v1/search", json={"query": "Payload 0", "mode": "fulltext", "topK": 1, "maxDepth": 1}
    )
    near = [e["node"] for e in around.json().get("expanded", []) if e["node"]["id"] == "d1"]
    assert all(same(n["data"], batched) for n in near)
    changed = await alice.http.patch("/v1/knowledge/d2", json={"data": patched})
    assert changed.status_code == 200 and same(changed.json()["data"], patched), changed.text
    assert same((await alice.http.get("/v1/knowledge/d2")).json()["data"], patched)
    # Undo of the patch takes the payload away again; a null clears it.
    [entry] = (await alice.http.get("/v1/mutations", params={"targetId": "d2", "limit": 1})).json()["items"]
    assert entry["op"] == "note.update" and same(json.loads(entry["after"]["data"]), patched), entry
    assert (await alice.http.post(f"/v1/mutations/{entry['id']}/undo")).status_code == 200
    assert "data" not in (await alice.http.get("/v1/knowledge/d2")).json()
    cleared = await alice.http.patch("/v1/knowledge/d0", json={"data": None})
    assert cleared.status_code == 200 and "data" not in cleared.json(), cleared.text


async def test_the_same_id_with_other_data_is_a_conflict_and_the_same_is_a_repeat(
    make_caller: MakeCaller,
) -> None:
    alice = await make_caller()
    assert (await alice.http.post("/v1/knowledge", json=note(0, {"b": 1, "a": 2}))).status_code == 201
    again = await alice.http.post("/v1/knowledge", json=note(0, {"b": 1, "a": 2}))
    assert again.status_code == 200 and list(again.json()["node"]["data"]) == ["b", "a"]
    other = await alice.http.post("/v1/knowledge", json=note(0, {"a": 2, "b": 1}))
    assert other.status_code == 409 and other.json()["error"]["field"] == "id", other.text


def _nested(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


async def _nothing_written(caller: Caller) -> None:
    listed = (await caller.http.get("/v1/knowledge")).json()["items"]
    assert listed == [], listed
    assert (await caller.http.get("/v1/mutations")).json()["items"] == []


async def test_the_bounds_refuse_with_the_field_and_write_nothing(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    wide = "x" * (DATA_MAX_CHARS - 2)  # its compact text, with the quotes: exactly the bound
    assert (await alice.http.post("/v1/knowledge", json=note(0, wide))).status_code == 201
    assert (await alice.http.post("/v1/knowledge", json=note(1, _nested(DATA_MAX_DEPTH)))).status_code == 201
    bob = await make_caller()
    for bad, why in ((wide + "x", "characters"), (_nested(DATA_MAX_DEPTH + 1), "nested deeper")):
        one = await bob.http.post("/v1/knowledge", json=note(5, bad))
        assert one.status_code == 422, one.text[:300]
        assert one.json()["error"]["field"] == "data" and why in one.json()["error"]["message"], one.text[
            :300
        ]
        items = [note(i, {"i": i}) for i in range(6)]
        items[3]["data"] = bad
        batch = await bob.http.post("/v1/knowledge/batch", json={"items": items})
        assert batch.status_code == 422 and batch.json()["error"]["field"] == "items.3.data", batch.text[:300]
        assert why in batch.json()["error"]["message"]
        await _nothing_written(bob)
    assert (await bob.http.post("/v1/knowledge", json=note(6, {}))).status_code == 201
    patch = await bob.http.patch("/v1/knowledge/d6", json={"data": _nested(DATA_MAX_DEPTH + 1)})
    assert patch.status_code == 422 and patch.json()["error"]["field"] == "data", patch.text[:300]
    assert (await bob.http.get("/v1/knowledge/d6")).json()["data"] == {}


async def test_a_body_nested_100000_deep_is_refused_and_the_server_stays_up(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    deep = "[" * 100_000 + "]" * 100_000
    for path, body in (
        ("/v1/knowledge", '{"title": "t", "content": "c", "type": "fact", "data": ' + deep + "}"),
        (
            "/v1/knowledge/batch",
            '{"items": [{"title": "t", "content": "c", "type": "fact", "data": ' + deep + "}]}",
        ),
        ("/v1/knowledge", deep),
    ):
        answer = await alice.http.post(path, content=body, headers={"Content-Type": "application/json"})
        assert 400 <= answer.status_code < 500, (path, answer.status_code, answer.text[:300])
        assert answer.json()["error"]["code"] in ("invalid_input", "bad_request", "unreadable_body"), (
            answer.text
        )
    await _nothing_written(alice)
    assert (await alice.http.get("/health")).status_code == 200


async def test_callers_at_once_each_leave_one_journal_entry(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    callers = [await make_caller(Role.AGENT, agent_id=f"w{i}", user_id=alice.user_id) for i in range(4)]
    assert (await callers[0].http.post("/v1/knowledge", json=note(0, {"v": -1}))).status_code == 201
    writes = [c.http.patch("/v1/knowledge/d0", json={"data": {"v": i, "by": n}})
              for n, c in enumerate(callers) for i in range(3)]  # fmt: skip
    answers = await asyncio.gather(*writes)
    assert {a.status_code for a in answers} <= {200, 409, 412}, [a.text[:200] for a in answers]
    applied = [a.json()["data"] for a in answers if a.status_code == 200]
    entries = (await alice.http.get("/v1/mutations", params={"targetId": "d0", "limit": 100})).json()["items"]
    updates = [json.loads(e["after"]["data"]) for e in entries if e["op"] == "note.update"]
    assert sorted(map(compact_json, updates)) == sorted(map(compact_json, applied))
    last = (await alice.http.get("/v1/knowledge/d0")).json()["data"]
    assert last == updates[0], (last, updates[0])  # newest first: the last applied write stands


async def test_an_agents_change_of_a_persons_payload_waits_for_the_person(make_caller: MakeCaller) -> None:
    person = await make_caller()
    agent = await make_caller(Role.AGENT, agent_id="scribe", user_id=person.user_id)
    assert (await person.http.post("/v1/knowledge", json=note(0, {"mine": True}))).status_code == 201
    assert (await person.http.post("/v1/knowledge", json=note(1, None))).status_code == 201
    for node_id, kept in (("d0", {"mine": True}), ("d1", None)):
        proposed = await agent.http.patch(f"/v1/knowledge/{node_id}", json={"data": {"agent": 1}})
        assert proposed.status_code == 202, proposed.text
        assert "data" in proposed.json()["proposal"]["fields"], proposed.text
        assert (await person.http.get(f"/v1/knowledge/{node_id}")).json().get("data") == kept
    [pending, *_] = (await person.http.get("/v1/proposals", params={"status": "pending"})).json()["items"]
    approved = await person.http.post(f"/v1/proposals/{pending['id']}/approve", json={"reason": "fine"})
    assert approved.status_code == 200, approved.text
    target = pending["targetId"]
    assert (await person.http.get(f"/v1/knowledge/{target}")).json()["data"] == {"agent": 1}
    # An agent's own note: its payload changes at once.
    assert (await agent.http.post("/v1/knowledge", json=note(2, [1]))).status_code == 201
    mine = await agent.http.patch("/v1/knowledge/d2", json={"data": [1, 2]})
    assert mine.status_code == 200 and mine.json()["data"] == [1, 2]


async def test_the_desk_shows_the_payload_escaped_and_indented(make_caller: MakeCaller, api: Any) -> None:
    from tests.support.desk import desk_client

    person = await make_caller()
    hostile = {"z": "<script>alert(1)</script>", "a": ["é & 中", 2**63 - 1]}
    assert (await person.http.post("/v1/knowledge", json=note(0, hostile))).status_code == 201
    async with desk_client(api.base_url, person.key) as desk:
        page = await desk.get("/desk/notes/d0")
    assert page.status_code == 200, page.text[:300]
    assert "<script>alert" not in page.text
    shown = json.dumps(hostile, indent=2, ensure_ascii=False)
    escaped = shown.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&#34;")
    assert escaped in page.text, page.text[page.text.find("note-data") :][:400]
