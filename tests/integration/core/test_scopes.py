"""Entity scopes on API keys, over HTTP against the real Neo4j: a scoped key sees only its
part of the user's knowledge in every call, and every way to widen it fails.

The sweep walks the live OpenAPI document as a scoped agent key of alice's own user, aimed at
everything of alice's outside the scope: no answer carries it, no call on it succeeds, and
it is unchanged afterwards. The other tests try each way in by hand."""

from __future__ import annotations

import uuid
from typing import Any

import httpx

from graph.core.principals import Role, Scope
from tests.integration.conftest import Caller, MakeCaller, correct_and_propose
from tests.support.sweep import read_all, seed_everything, state_outside, sweep

#: Operations a scoped key may use whose answers carry nothing outside the scope, and why.
EXEMPT = {
    ("get", "/health"): "liveness, no user data",
    ("get", "/ready"): "readiness, no user data",
    ("get", "/v1/me"): "the caller's own principal",
    ("get", "/v1/agents/{id}"): "the deployment's agent configuration, the same for every user",
}

#: Paths every key of a user shares: skills are procedures, not memory. Any key reads and
#: loads any skill (200); redefining one its own agent did not write is refused, and the
#: comparison of the state outside the scope (skills included) shows it.
SHARED = ("/v1/skills",)


def note(note_id: str, *tags: str, content: str | None = None) -> dict[str, Any]:
    return {"id": note_id, "title": note_id, "content": content or f"About {note_id}.", "type": "fact",
            "tags": list(tags), "dedupe": False}  # fmt: skip


async def outside(alice: Caller, ids: dict[str, str]) -> list[Any]:
    """Everything of alice's outside the scope, as alice reads it."""
    paths = [
        f"/v1/knowledge/{ids['note']}",
        f"/v1/knowledge/{ids['note2']}",
        f"/v1/knowledge/{ids['note']}/connections",
        f"/v1/threads/{ids['thread']}",
        f"/v1/threads/{ids['thread']}/messages",
        "/v1/insights",
        "/v1/profile",
        f"/v1/sessions/{ids['session']}",
        f"/v1/sessions/{ids['session']}/replay",
        f"/v1/goals/{ids['goal']}",
        f"/v1/proposals/{ids['proposal']}",
        f"/v1/wiki/{ids['page']}",
    ]
    return await read_all(alice, paths)


async def test_no_operation_of_a_scoped_key_reaches_outside_its_scope(
    make_caller: MakeCaller, api: Any
) -> None:
    alice = await make_caller()
    token = f"zq{uuid.uuid4().hex[:10]}"
    ids = await seed_everything(alice, make_caller, token, skill_text="a procedure every key shares")
    for made in (note("inside-1", "proj"), note("inside-2", "proj")):
        assert (await alice.http.post("/v1/knowledge", json=made)).status_code == 201
    link = {"type": "relatedTo", "targetId": "inside-2"}
    assert (await alice.http.post("/v1/knowledge/inside-1/connections", json=link)).status_code == 201
    scoped = await make_caller(
        Role.AGENT, agent_id="scoped", user_id=alice.user_id, scope=Scope(tags=("proj",))
    )
    before = await outside(alice, ids)
    whole = await state_outside(alice, ids, ("proj",), "scoped")

    document = httpx.get(f"{api.base_url}/openapi.json", timeout=30).json()
    answers, unplaced = await sweep(document, scoped, ids, EXEMPT, same_user=True)
    for (method, url, params, body), answer in answers:
        assert answer.status_code < 500, (method, url, answer.text)
        assert token not in answer.text, ("outside the scope leaked", method, url, answer.text[:300])
        if params and not url.startswith(SHARED):
            assert answer.status_code in (403, 404), (method, url, body, answer.status_code, answer.text)
    assert not unplaced, unplaced
    assert len(answers) + len(EXEMPT) == sum(len(ops) for ops in document["paths"].values())
    assert await outside(alice, ids) == before, "a scoped key changed what lies outside its scope"
    after = await state_outside(alice, ids, ("proj",), "scoped")
    assert after.keys() == whole.keys(), set(after) ^ set(whole)
    for key, was in whole.items():
        assert after[key] == was, ("a scoped key changed what lies outside its scope", key, was, after[key])
    # What is inside stays in reach.
    assert [n["id"] for n in (await scoped.http.get("/v1/knowledge")).json()["items"]] == [
        "inside-2",
        "inside-1",
    ]


async def test_every_way_to_widen_a_scope_fails(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    secret = "The vault code is 4471."
    for made in (
        note("in-a", "proj"),
        note("in-b", "proj"),
        note("out-x", content=secret),
        note("out-y", "ops"),
    ):
        assert (await alice.http.post("/v1/knowledge", json=made)).status_code == 201
    for source, target in (("in-a", "in-b"), ("in-a", "out-x")):
        edge = {"type": "relatedTo", "targetId": target}
        assert (await alice.http.post(f"/v1/knowledge/{source}/connections", json=edge)).status_code == 201
    scoped = await make_caller(Role.AGENT, agent_id="bot", user_id=alice.user_id, scope=Scope(tags=("proj",)))
    me = (await scoped.http.get("/v1/me")).json()
    assert me["scope"] == {"ids": [], "tags": ["proj"]}

    # Reading: lists, gets, search (every mode), neighbourhoods and connections.
    assert {n["id"] for n in (await scoped.http.get("/v1/knowledge")).json()["items"]} == {"in-a", "in-b"}
    assert (await scoped.http.get("/v1/knowledge", params={"tag": "ops"})).json()["items"] == []
    for node_id in ("out-x", "out-y"):
        assert (await scoped.http.get(f"/v1/knowledge/{node_id}")).status_code == 404
        assert (await scoped.http.get(f"/v1/knowledge/{node_id}/neighborhood")).status_code == 404
        assert (await scoped.http.get(f"/v1/knowledge/{node_id}/connections")).status_code == 404
    for mode in ("vector", "fulltext", "hybrid"):
        query = {"query": "vault code", "mode": mode, "topK": 10, "maxDepth": 3, "includeSuperseded": True}
        found = (await scoped.http.post("/v1/search", json=query)).json()
        assert "vault" not in str(found) and {h["node"]["id"] for h in found["hits"]} <= {"in-a", "in-b"}
        tagged = {**query, "filters": {"tags": ["ops"]}}
        assert (await scoped.http.post("/v1/search", json=tagged)).json()["hits"] == []
    around = (await scoped.http.get("/v1/knowledge/in-a/neighborhood", params={"depth": 3})).json()
    assert "out-x" not in str(around) and "vault" not in str(around)
    edges = (await scoped.http.get("/v1/knowledge/in-a/connections")).json()["items"]
    assert [(e["sourceId"], e["targetId"]) for e in edges] == [("in-a", "in-b")]

    # Writing: outside notes are not there; new notes must land inside; no merge into outside.
    assert (await scoped.http.patch("/v1/knowledge/out-x", json={"content": "Mine now."})).status_code == 404
    assert (await scoped.http.delete("/v1/knowledge/out-x")).status_code == 404
    outward = {"type": "dependsOn", "targetId": "out-x"}
    assert (await scoped.http.post("/v1/knowledge/in-a/connections", json=outward)).status_code == 404
    assert (await scoped.http.delete("/v1/knowledge/in-a/connections/relatedTo/out-x")).status_code == 404
    assert (await scoped.http.delete("/v1/knowledge/in-a")).status_code == 403  # it touches out-x
    untagged = await scoped.http.post("/v1/knowledge", json=note("new-1", "ops"))
    assert untagged.status_code == 403 and untagged.json()["error"]["field"] == "tags"
    batch = {"items": [note("new-2", "proj"), note("new-3")]}
    refused = await scoped.http.post("/v1/knowledge/batch", json=batch)
    assert refused.status_code == 403 and refused.json()["error"]["field"] == "items.1.tags"
    taken = await scoped.http.post("/v1/knowledge", json=note("out-y", "proj"))
    assert taken.status_code == 409 and "vault" not in taken.text
    twin = {**note("twin", "proj", content=secret), "dedupe": True}
    made = await scoped.http.post("/v1/knowledge", json=twin)
    assert made.status_code == 201 and made.json()["node"]["id"] == "twin", made.text  # not merged into out-x
    assert (await alice.http.get("/v1/knowledge/out-x")).json().get("mergeCount", 0) == 0

    # The journal, corrections, catch_up and the caller's own scope only narrow.
    mutations = (await scoped.http.get("/v1/mutations", params={"limit": 200})).json()["items"]
    assert {m["targetId"] for m in mutations} <= {"in-a", "in-b", "twin", "in-a relatedTo in-b"}, mutations
    assert (await scoped.http.get("/v1/mutations", params={"targetId": "out-x"})).json()["items"] == []
    agent = await make_caller(Role.AGENT, agent_id="writer", user_id=alice.user_id)
    await correct_and_propose(alice, agent, "out-agent", "The port is 8080.")
    assert (await scoped.http.get("/v1/corrections")).json()["items"] == []
    since = "2000-01-01T00:00:00Z"
    wide = await scoped.http.post(
        "/v1/catch-up", json={"since": since, "entityScope": {"ids": ["out-x", "in-a"]}}
    )
    assert {k["id"] for k in wide.json()["knowledge"]["items"]} == {"in-a"}  # out-x silently dropped
    by_tag = await scoped.http.post("/v1/catch-up", json={"since": since, "entityScope": {"tags": ["ops"]}})
    assert by_tag.json()["knowledge"]["count"] == 0 and by_tag.json()["approvals"]["count"] == 0
    oriented = (await scoped.http.post("/v1/orient", json={})).json()
    assert {h["id"] for h in oriented["hotEntities"]} <= {"in-a", "in-b", "twin"}
    assert oriented["lastCorrections"] == [] and oriented["syncStatus"]["counts"]["waitingProposals"] == 0
    brief = (await scoped.http.post("/v1/brief", json={"task": "the vault code"})).json()
    assert "out-x" not in brief["text"] and brief["sections"]["insights"] == brief["sections"]["pages"] == []
    assert {k["id"] for k in brief["sections"]["knowledge"]} <= {"in-a", "in-b", "twin"}

    # Memory that is not divided by notes is refused; the work state is its own agent's.
    for method, path in (("get", "/v1/threads"), ("get", "/v1/insights"), ("get", "/v1/profile"),
                         ("get", "/v1/proposals"), ("post", "/v1/context/user")):  # fmt: skip
        refused = await scoped.http.request(method, path, json={"query": "x"} if method == "post" else None)
        assert refused.status_code == 403 and refused.json()["error"]["field"] == "scope", (
            path,
            refused.text,
        )
    other = await scoped.http.post("/v1/sessions", json={"agentId": "writer"})
    assert other.status_code == 403 and other.json()["error"]["field"] == "agentId"
    threaded = await scoped.http.post("/v1/sessions", json={"threadId": "any-thread"})
    assert threaded.status_code == 403 and threaded.json()["error"]["field"] == "threadId"
    assert (await agent.http.post("/v1/sessions", json={"id": "theirs"})).status_code == 201
    assert (await scoped.http.get("/v1/sessions/theirs")).status_code == 404
    assert (await scoped.http.get("/v1/sessions", params={"agentId": "writer"})).json()["items"] == []
    assert (await scoped.http.post("/v1/sessions", json={"id": "mine"})).status_code == 201
    assert [s["id"] for s in (await scoped.http.get("/v1/sessions")).json()["items"]] == ["mine"]

    # A key scoped by note ids sees those notes; an unscoped key of the user still sees all.
    by_id = await make_caller(Role.AGENT, agent_id="bot", user_id=alice.user_id, scope=Scope(ids=("out-y",)))
    assert [n["id"] for n in (await by_id.http.get("/v1/knowledge")).json()["items"]] == ["out-y"]
    assert (await by_id.http.get("/v1/knowledge/in-a")).status_code == 404
    everything = (await alice.http.get("/v1/knowledge")).json()["items"]
    assert {"in-a", "out-x", "out-y", "twin"} <= {n["id"] for n in everything}


async def test_a_key_acknowledges_corrections_only_for_its_own_agents_sessions(
    make_caller: MakeCaller,
) -> None:
    person = await make_caller()
    writer = await make_caller(Role.AGENT, agent_id="writer", user_id=person.user_id)
    scoped = await make_caller(
        Role.AGENT, agent_id="bot", user_id=person.user_id, scope=Scope(tags=("proj",))
    )
    assert (await writer.http.post("/v1/knowledge", json=note("cr-s-n", "proj"))).status_code == 201
    fixed = await person.http.patch("/v1/knowledge/cr-s-n", json={"content": "Fixed by a person."})
    assert fixed.status_code == 200
    [correction] = (await person.http.get("/v1/corrections")).json()["items"]
    for caller, session in ((writer, "w-s1"), (scoped, "b-s1")):
        assert (await caller.http.post("/v1/sessions", json={"id": session})).status_code == 201
    ack = f"/v1/corrections/{correction['id']}/ack"

    # Not another agent's session, nor one that does not exist: 404 naming sessionId.
    for caller, session in ((scoped, "w-s1"), (scoped, "nowhere"), (writer, "b-s1")):
        refused = await caller.http.post(ack, json={"sessionId": session, "actionTaken": "Seen."})
        assert refused.status_code == 404 and refused.json()["error"]["field"] == "sessionId", refused.text
    waiting = await writer.http.post("/v1/orient", json={}, headers={"X-Session-ID": "w-s1"})
    assert [c["id"] for c in waiting.json()["lastCorrections"]] == [correction["id"]]
    # Its own session's, open or ended; a person's key, any session of its user.
    assert (
        await scoped.http.post(ack, json={"sessionId": "b-s1", "actionTaken": "Seen."})
    ).status_code == 200
    assert (await scoped.http.post("/v1/sessions/b-s1/end", json={"summary": "Done."})).status_code == 200
    acked = await scoped.http.post(ack, json={"sessionId": "b-s1", "actionTaken": "Seen."})
    assert acked.status_code == 200 and len(acked.json()["acknowledgements"]) == 1
    assert (
        await person.http.post(ack, json={"sessionId": "w-s1", "actionTaken": "Told it."})
    ).status_code == 200
