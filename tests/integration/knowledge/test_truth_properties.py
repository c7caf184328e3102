"""A property test (hypothesis) over HTTP against the real Neo4j: random sequences of agent
and human writes (creates with and without vectors of the agent's own, patches, deletes,
edges, undos, a person's rejections) never let an agent change a field a person wrote or
corrected, bring back a fact a person deleted, or get a change a person rejected proposed
again; and undoing any mutation and then undoing that undo returns the original state."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st

from graph.core.principals import Role
from tests.integration.conftest import Caller, MakeCaller
from tests.integration.knowledge.test_integrity import unit_vector

SLOTS = 3
FIELDS = ("title", "content", "tags", "confidence", "status")

action = st.one_of(
    st.tuples(st.just("agent_create"), st.integers(0, SLOTS - 1), st.booleans()),
    st.tuples(st.just("agent_twin"), st.integers(0, SLOTS - 1)),
    st.tuples(
        st.sampled_from(["human_patch", "agent_patch"]), st.integers(0, SLOTS - 1), st.sampled_from(FIELDS)
    ),
    st.tuples(st.sampled_from(["human_delete", "agent_delete"]), st.integers(0, SLOTS - 1)),
    # An agent aiming at what a person corrected: the i-th corrected (note, field) pair.
    st.tuples(st.just("agent_patch_corrected"), st.integers(0, 7)),
    st.tuples(
        st.sampled_from(["human_connect", "agent_connect"]),
        st.integers(0, SLOTS - 1),
        st.sampled_from(["relatedTo", "supersedes"]),
        st.integers(0, SLOTS - 1),
    ),
    st.tuples(st.just("undo"), st.sampled_from([Role.HUMAN, Role.AGENT]), st.integers(0, 5)),
    # A person turns down the oldest pending proposal; an agent sends a rejected change again.
    st.tuples(st.just("human_reject")),
    st.tuples(st.just("agent_retry_rejected"), st.integers(0, 3)),
)


def value(field: str, n: int) -> Any:
    return {
        "title": f"Title {n}",
        "content": f"Content number {n}.",
        "tags": [f"t{n}"],
        "confidence": round(0.5 + n / 100, 2),
        "status": "archived" if n % 2 else "active",
    }[field]


async def state(caller: Caller) -> dict[str, Any]:
    """Every note and edge of the user, as a person would compare them."""
    notes = (await caller.http.get("/v1/knowledge", params={"limit": 500})).json()["items"]
    keep = ("title", "content", "type", "source", "confidence", "tags", "status", "mergeCount", "createdAt")
    out: dict[str, Any] = {}
    for n in notes:
        edges = (await caller.http.get(f"/v1/knowledge/{n['id']}/connections")).json()["items"]
        out[n["id"]] = {k: n[k] for k in keep} | {
            "edges": sorted((e["type"], e["sourceId"], e["targetId"]) for e in edges)
        }
    return out


async def corrected_fields(caller: Caller) -> dict[str, set[str]]:
    items = (await caller.http.get("/v1/corrections", params={"limit": 500})).json()["items"]
    held: dict[str, set[str]] = {}
    for c in items:
        if c["status"] == "active":
            held.setdefault(c["targetId"], set()).update(c["fields"])
    return held


async def deleted_by_people(caller: Caller) -> set[str]:
    items = (await caller.http.get("/v1/corrections", params={"limit": 500})).json()["items"]
    return {c["targetId"] for c in items if c["status"] == "active" and c["kind"] == "delete"}


async def taken_text(caller: Caller, node_id: str) -> tuple[str, str] | None:
    """The agent's title and content a person's delete of ``node_id`` took away, if any."""
    items = (await caller.http.get("/v1/corrections", params={"limit": 500})).json()["items"]
    for c in items:  # newest first
        mine = c["targetId"] == node_id and c["status"] == "active" and c["kind"] == "delete"
        if mine and {"title", "content"} <= set(c["before"]):
            return c["before"]["title"], c["before"]["content"]
    return None


async def resend(agent: Caller, proposal: dict[str, Any]) -> Any:
    """The agent's write a proposal holds, sent again as the agent first sent it."""
    op, target, payload = proposal["op"], proposal.get("targetId"), proposal["payload"]
    if op == "note.create":
        return await agent.http.post("/v1/knowledge", json=payload["note"])
    if op == "note.update":
        return await agent.http.patch(f"/v1/knowledge/{target}", json=payload["patch"])
    if op == "note.delete":
        return await agent.http.delete(f"/v1/knowledge/{target}")
    if op == "edge.connect":
        [edge] = payload["edges"]
        body = {"type": edge["type"], "targetId": edge["targetId"]}
        return await agent.http.post(f"/v1/knowledge/{edge['sourceId']}/connections", json=body)
    if op == "edge.disconnect":
        path = f"/v1/knowledge/{payload['sourceId']}/connections/{payload['type']}/{payload['targetId']}"
        return await agent.http.delete(path)
    return await agent.http.post(f"/v1/mutations/{payload['mutationId']}/undo")


async def run(person: Caller, agent: Caller, steps: list[tuple[Any, ...]]) -> None:
    counter = 0
    #: (note, field) a person wrote last, as the steps tell it.
    person_wrote: set[tuple[str, str]] = set()
    rejected: list[dict[str, Any]] = []
    for step in steps:
        counter += 1
        kind = step[0]
        before = await state(person)
        held = await corrected_fields(person)
        gone = await deleted_by_people(person)
        if kind == "agent_create":
            _, slot, with_vector = step
            body = {
                "id": f"n{slot}", "title": f"Note {slot}", "content": f"Agent fact {slot}.", "type": "fact",
                "dedupe": False,
            } | ({"embedding": unit_vector(100 + slot)} if with_vector else {})  # fmt: skip
            answer = await agent.http.post("/v1/knowledge", json=body)
            assert answer.status_code in (200, 201, 202, 409), answer.text
            event(f"agent_create: {answer.status_code}")
        elif kind == "agent_twin":  # a deleted note's text under a new id, with a vector of its own
            slot = step[1]
            taken = await taken_text(person, f"n{slot}")
            title, content = taken or ("Again", f"Agent fact {slot} again.")
            body = {
                "id": f"twin{counter}", "title": title, "content": content, "type": "fact",
                "embedding": unit_vector(200 + counter % 100), "dedupe": False,
            }  # fmt: skip
            answer = await agent.http.post("/v1/knowledge", json=body)
            assert answer.status_code in (201, 202, 409), answer.text  # 409: a person rejected it
            if taken is not None:
                assert answer.status_code in (202, 409), "an agent wrote back a fact a person deleted"
                event("an agent's twin of a fact a person deleted became a proposal")
        elif kind in ("human_patch", "agent_patch", "agent_patch_corrected"):
            if kind == "agent_patch_corrected":
                pairs = sorted(
                    (n, f) for n, fields in held.items() for f in fields & set(FIELDS) if n in before
                )
                if not pairs:
                    continue
                note_id, field = pairs[step[1] % len(pairs)]
            else:
                note_id, field = f"n{step[1]}", step[2]
            caller = person if kind == "human_patch" else agent
            answer = await caller.http.patch(f"/v1/knowledge/{note_id}", json={field: value(field, counter)})
            assert answer.status_code in (200, 202, 404, 409), answer.text  # 409: active while superseded
            event(f"{kind}: {answer.status_code}")
            if kind == "human_patch" and answer.status_code == 200:
                person_wrote.add((note_id, field))
        elif kind in ("human_delete", "agent_delete"):
            caller = person if kind == "human_delete" else agent
            answer = await caller.http.delete(f"/v1/knowledge/n{step[1]}")
            assert answer.status_code in (202, 204, 404), answer.text
            event(f"{kind}: {answer.status_code}")
            if kind == "human_delete" and answer.status_code == 204:
                person_wrote = {(n, f) for n, f in person_wrote if n != f"n{step[1]}"}
        elif kind in ("human_connect", "agent_connect"):
            _, a, edge_type, b = step
            if a != b:
                caller = person if kind == "human_connect" else agent
                edge = {"type": edge_type, "targetId": f"n{b}"}
                answer = await caller.http.post(f"/v1/knowledge/n{a}/connections", json=edge)
                assert answer.status_code in (200, 201, 202, 404, 409), answer.text  # 409: a loop
                event(f"{kind} {edge_type}: {answer.status_code}")
        elif kind == "human_reject":
            waiting = (await person.http.get("/v1/proposals", params={"status": "pending"})).json()["items"]
            if not waiting:
                continue
            oldest = waiting[-1]
            answer = await person.http.post(f"/v1/proposals/{oldest['id']}/reject")
            assert answer.status_code == 200, answer.text
            rejected.append(oldest)
            event("human_reject")
        elif kind == "agent_retry_rejected":
            if not rejected:
                continue
            answer = await resend(agent, rejected[step[1] % len(rejected)])
            # Refused as rejected (409), or gone since (404), or no longer held by anything a
            # person wrote (the person changed it since): never a new proposal.
            assert answer.status_code != 202, ("a change a person rejected was proposed again", answer.text)
            event(f"agent_retry_rejected: {answer.status_code}")
        else:  # undo the k-th latest mutation, then undo that undo: back where it started
            _, role, k = step
            caller = person if role == Role.HUMAN else agent
            items = (await person.http.get("/v1/mutations", params={"limit": 10})).json()["items"]
            undoable = [m for m in items if m["targetType"] in ("Knowledge", "Edge")]
            if len(undoable) <= k:
                continue
            undone = await caller.http.post(f"/v1/mutations/{undoable[k]['id']}/undo")
            assert undone.status_code in (200, 202, 409), undone.text
            event(f"{role.value} undo of {undoable[k]['op']}: {undone.status_code}")
            if undone.status_code == 200:
                redone = await person.http.post(f"/v1/mutations/{undone.json()['mutation']['id']}/undo")
                assert redone.status_code == 200, redone.text
                assert await state(person) == before, "undo of the undo did not return the original state"
        if kind.startswith("agent") or (kind == "undo" and step[1] == Role.AGENT):
            after = await state(person)
            for note_id in gone - before.keys():
                assert note_id not in after, f"an agent brought back {note_id}, which a person deleted"
            for note_id, fields in held.items():
                if note_id in before:
                    assert note_id in after, f"an agent deleted corrected note {note_id}"
                    for name in fields & set(FIELDS):
                        assert after[note_id][name] == before[note_id][name], (
                            f"an agent changed corrected field {name} of {note_id}"
                        )
            for note_id, name in person_wrote:
                if note_id in before:
                    assert note_id in after, f"an agent deleted {note_id}, which a person wrote to"
                    assert after[note_id][name] == before[note_id][name], (
                        f"an agent changed field {name} of {note_id}, which a person wrote"
                    )


@settings(
    max_examples=16,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    # A person's first corrections (a field of an agent's note, or the note itself), then
    # anything: so every example has something for an agent to trample on.
    corrections=st.lists(
        st.one_of(
            st.tuples(st.just("human_patch"), st.integers(0, SLOTS - 1), st.sampled_from(FIELDS)),
            st.tuples(st.just("human_delete"), st.integers(0, SLOTS - 1)),
        ),
        min_size=1,
        max_size=2,
    ),
    steps=st.lists(action, min_size=3, max_size=8),
)
async def test_no_agent_write_overrides_a_correction_and_undo_round_trips(
    make_caller: MakeCaller, corrections: list[tuple[Any, ...]], steps: list[tuple[Any, ...]]
) -> None:
    agent = await make_caller(Role.AGENT, agent_id="scribe")  # a fresh user each example
    person = await make_caller(Role.HUMAN, user_id=agent.user_id)
    for slot in range(SLOTS):  # every slot starts as an agent's note a person may correct
        body = {
            "id": f"n{slot}", "title": f"Note {slot}", "content": f"Agent fact {slot}.", "type": "fact",
            "embedding": unit_vector(100 + slot), "dedupe": False,
        }  # fmt: skip
        assert (await agent.http.post("/v1/knowledge", json=body)).status_code == 201
    note(f"steps: {corrections + steps!r}")
    await run(person, agent, corrections + steps)
