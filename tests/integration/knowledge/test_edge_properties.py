"""A property test (hypothesis) over HTTP against the real Neo4j, the edges' counterpart of
test_truth_properties: random sequences of a person's and agents' connects and disconnects
(several agents at once on the same edge too), undos by an agent, and a person's approvals
and rejections of what was proposed. A person's last word on an edge (it stands, or it does
not) always holds until a person changes it; an agent's write against it is a proposal."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st

from graph.core.principals import Role
from tests.integration.conftest import Caller, MakeCaller

#: The edges the steps aim at; the last is the third the other way round (one edge).
SLOTS = (
    ("a", "relatedTo", "b"),
    ("b", "dependsOn", "c"),
    ("a", "conflictsWith", "c"),
    ("c", "conflictsWith", "a"),
)
AGENTS = 3

action = st.one_of(
    st.tuples(
        st.sampled_from(["person", "agent"]), st.sampled_from(["connect", "disconnect"]), st.integers(0, 3)
    ),
    st.tuples(st.just("agents_at_once"), st.sampled_from(["connect", "disconnect"]), st.integers(0, 3)),
    st.tuples(st.just("agent_undo"), st.integers(0, 3)),
    st.tuples(st.sampled_from(["approve", "reject"])),
)


def key(slot: int) -> tuple[str, str, str]:
    """An edge as it is compared: conflictsWith either way round is one edge."""
    source, kind, target = SLOTS[slot]
    if kind == "conflictsWith":
        source, target = sorted((source, target))
    return source, kind, target


def key_of(edge: dict[str, Any]) -> tuple[str, str, str]:
    source, kind, target = edge["sourceId"], edge["type"], edge["targetId"]
    if kind == "conflictsWith":
        source, target = sorted((source, target))
    return source, kind, target


async def standing(person: Caller) -> set[tuple[str, str, str]]:
    items = (await person.http.get("/v1/connections", params={"limit": 100})).json()["items"]
    return {key_of(e) for e in items}


async def write(caller: Caller, op: str, slot: int) -> int:
    source, kind, target = SLOTS[slot]
    if op == "connect":
        answer = await caller.http.post(
            f"/v1/knowledge/{source}/connections", json={"type": kind, "targetId": target}
        )
    else:
        answer = await caller.http.delete(f"/v1/knowledge/{source}/connections/{kind}/{target}")
    assert answer.status_code in (200, 201, 202, 204, 404, 409), answer.text
    return answer.status_code


async def approved(person: Caller, ids: list[str], word: dict[tuple[str, str, str], bool]) -> None:
    """What a person's approval said of an edge: the edge change it applied (the last of its
    mutations: an agent's connect, disconnect, or undo of either or of a confirmation)."""
    if not ids:  # nothing to apply any more (the person made that edge meanwhile)
        return
    items = (await person.http.get("/v1/mutations", params={"limit": 10})).json()["items"]
    [change] = [m for m in items if m["id"] == ids[-1]]
    if change["op"] == "edge.disconnect":
        word[key_of(change["before"])] = False
    elif change.get("before") is None or change["after"].get("confirmedByPerson"):
        word[key_of(change["after"])] = True
    else:  # the person's confirmation taken back: the edge is the agent's again
        word.pop(key_of(change["after"]), None)


async def run(person: Caller, agents: list[Caller], steps: list[tuple[Any, ...]]) -> None:
    #: The person's last word on each edge: True (it stands), False (it does not).
    word: dict[tuple[str, str, str], bool] = {}
    for step in steps:
        kind = step[0]
        if kind == "person":
            _, op, slot = step
            code = await write(person, op, slot)
            if code in (200, 201, 204):
                word[key(slot)] = op == "connect"
            event(f"person {op}: {code}")
        elif kind in ("agent", "agents_at_once"):
            _, op, slot = step
            callers = agents[:1] if kind == "agent" else agents
            codes = await asyncio.gather(*(write(c, op, slot) for c in callers))
            said = word.get(key(slot))
            if said is not None and said != (op == "connect"):
                # Against the person's word: proposed, or refused as rejected before.
                assert all(c in (202, 409) for c in codes), (step, codes)
            event(f"{kind} {op}: {sorted(set(codes))}")
        elif kind == "agent_undo":
            items = (await person.http.get("/v1/mutations", params={"limit": 10})).json()["items"]
            edges = [m for m in items if m["targetType"] == "Edge"]
            if len(edges) <= step[1]:
                continue
            undone = await agents[0].http.post(f"/v1/mutations/{edges[step[1]]['id']}/undo")
            assert undone.status_code in (200, 202, 409), undone.text
            event(f"agent undo of {edges[step[1]]['op']}: {undone.status_code}")
        else:
            waiting = (await person.http.get("/v1/proposals", params={"status": "pending"})).json()["items"]
            if not waiting:
                continue
            chosen = waiting[0] if kind == "approve" else waiting[-1]
            answer = await person.http.post(f"/v1/proposals/{chosen['id']}/{kind}")
            assert answer.status_code in (200, 404, 409), answer.text
            event(f"{kind} {chosen['op']}: {answer.status_code}")
            if kind == "approve" and answer.status_code == 200:
                await approved(person, answer.json()["decision"]["mutationIds"], word)
        now = await standing(person)
        for edge, stands in word.items():
            assert (edge in now) == stands, (
                f"{edge} {'is gone' if stands else 'is back'} against the person's word"
            )


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    # A person's first words on the agents' edges, then anything: so every example has
    # something for an agent to trample on.
    first_words=st.lists(
        st.tuples(st.just("person"), st.sampled_from(["connect", "disconnect"]), st.integers(0, 3)),
        min_size=1,
        max_size=2,
    ),
    steps=st.lists(action, min_size=3, max_size=10),
)
async def test_a_persons_last_word_on_an_edge_stands(
    make_caller: MakeCaller, first_words: list[tuple[Any, ...]], steps: list[tuple[Any, ...]]
) -> None:
    first = await make_caller(Role.AGENT, agent_id="scribe")  # a fresh user each example
    agents = [first] + [
        await make_caller(Role.AGENT, agent_id=f"bot{i}", user_id=first.user_id) for i in range(AGENTS - 1)
    ]
    person = await make_caller(Role.HUMAN, user_id=first.user_id)
    items = [
        {"id": n, "title": f"Note {n}", "content": f"Fact {n}.", "type": "fact", "dedupe": False}
        for n in "abc"
    ]
    assert (await first.http.post("/v1/knowledge/batch", json={"items": items})).status_code == 201
    for slot in range(3):  # every edge starts as an agent's
        assert await write(first, "connect", slot) == 201
    note(f"steps: {first_words + steps!r}")
    await run(person, agents, first_words + steps)
