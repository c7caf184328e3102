"""What the sweeps that walk the OpenAPI document (another user's calls, a scoped key's
calls) share: which of the owner's ids each parameter names, and a small valid body."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import httpx

from graph.core.principals import Role
from tests.integration.conftest import Caller, MakeCaller, correct_and_propose
from tests.support.resources import RESOURCES

#: Which of alice's ids other path parameters and id-like body fields name.
NAMED = {
    "target_id": "note2",
    "other_id": "thread2",
    "sourceId": "note",
    "targetId": "note2",
    "threadId": "thread2",
    "sessionId": "session",
    "agentId": "agent",
    "insightIds": "insight",
    "slug": "page",
}

#: Creates whose body's ``id`` is aimed at the owner's thing of that kind, for a caller of
#: the owner's own user (the way to try an overwrite): a skill, a goal, a session of that id.
#: Another user would only make its own thing of that id.
BODY_IDS = {"/v1/skills": "skill", "/v1/goals": "goal", "/v1/sessions": "session"}

#: What loading a skill changes: its use, not the skill (every key of the user may load any).
SKILL_USE = ("invocationCount", "lastLoadedAt")


def resolve_schema(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    if "anyOf" in schema:
        schema = next(s for s in schema["anyOf"] if s.get("type") != "null")
        return resolve_schema(document, schema)
    return schema


def example(document: dict[str, Any], schema: dict[str, Any], ids: dict[str, str], name: str = "") -> Any:
    """A small valid value for ``schema``; id-like fields get alice's ids."""
    schema = resolve_schema(document, schema)
    if name in NAMED:
        return ids[NAMED[name]]
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object":
        properties = schema.get("properties", {})
        wanted = schema.get("required") or list(properties)[:1]
        return {key: example(document, properties[key], ids, key) for key in wanted}
    if kind == "array":
        return [example(document, schema["items"], ids, name)] if schema.get("minItems", 0) else []
    if kind == "integer":
        return int(schema.get("minimum", 1))
    if kind == "number":
        return float(schema.get("minimum", 0.5))
    if kind == "boolean":
        return False
    if name == "id":
        return ids["note"]
    return "x" * int(schema.get("minLength", 1))


async def seed_everything(
    alice: Caller,
    make_caller: MakeCaller,
    token: str,
    skill_text: str | None = None,
    claim: str | None = None,
) -> dict[str, str]:
    """One of each thing alice can own, each carrying ``token`` in its text (the skill
    ``skill_text``, if given), linked as the API allows; the ids by kind. ``claim`` is what the
    agent's note that a person corrects says (a second seeding of one user needs another: a
    twin of a corrected note is held for the person)."""
    skill_text = skill_text or token
    tag = uuid.uuid4().hex[:8]
    ids = {
        "note": f"note-{tag}",
        "note2": f"other-{tag}",
        "thread": f"thread-{tag}",
        "thread2": f"thread2-{tag}",
    }
    for note_id in (ids["note"], ids["note2"]):
        text = f"{token} {note_id} I prefer tea."
        body = {"id": note_id, "title": f"Secret {token}", "content": text, "type": "fact", "dedupe": False,
                "data": {"secret": token, "of": note_id, "n": [1, 2.5, None, True]}}  # fmt: skip
        assert (await alice.http.post("/v1/knowledge", json=body)).status_code == 201
    link = {"type": "relatedTo", "targetId": ids["note2"]}
    assert (await alice.http.post(f"/v1/knowledge/{ids['note']}/connections", json=link)).status_code == 201
    for thread_id in (ids["thread"], ids["thread2"]):
        assert (
            await alice.http.post("/v1/threads", json={"id": thread_id, "topic": token})
        ).status_code == 201
    said = {"messages": [{"role": "user", "content": f"I prefer {token} tea every morning.",
                          "data": {"said": [token, {"at": 1}]}}]}  # fmt: skip
    assert (await alice.http.post(f"/v1/threads/{ids['thread']}/messages", json=said)).status_code == 201
    ids["job"] = (await alice.http.post(f"/v1/threads/{ids['thread']}/extract")).json()["jobId"]
    for _ in range(200):
        if (await alice.http.get(f"/v1/jobs/{ids['job']}")).json()["status"] in ("done", "failed"):
            break
        await asyncio.sleep(0.05)
    insights = (await alice.http.get("/v1/insights", params={"threadId": ids["thread"]})).json()["items"]
    ids["insight"] = insights[0]["id"]
    profile = {"preferences": {"tea": token}, "background": f"Drinks {token}."}
    assert (await alice.http.put("/v1/profile", json=profile)).status_code == 200
    ids["agent"] = "helper"
    ids["session"] = f"session-{tag}"
    session = {"id": ids["session"], "agentId": "helper", "topic": f"{token} tea", "threadId": ids["thread"]}
    assert (await alice.http.post("/v1/sessions", json=session)).status_code == 201
    end = {"summary": f"We chose {token}.", "pendingActions": [f"Follow up on {token}"]}
    ended = await alice.http.post(f"/v1/sessions/{ids['session']}/end", json=end)
    assert ended.status_code == 200
    ids["pending"] = ended.json()["pendingActions"][0]["id"]
    ids["goal"], ids["skill"] = f"goal-{tag}", f"skill-{tag}"
    goal = {"id": ids["goal"], "title": f"Ship {token}"}
    assert (await alice.http.post("/v1/goals", json=goal)).status_code == 201
    skill = {
        "id": ids["skill"],
        "name": f"Use {skill_text}",
        "bodyMd": f"Call {skill_text}.",
        "bundle": "sweep",
    }
    assert (await alice.http.post("/v1/skills", json=skill)).status_code == 201
    call = {"items": [{"tool": "search", "arguments": {"query": token}, "resultSummary": token}]}
    assert (await alice.http.post(f"/v1/sessions/{ids['session']}/tool-calls", json=call)).status_code == 201
    save = {
        "summary": f"Settled on {token}.",
        "decisions": [f"Use {token}"],
        "insights": [{"type": "fact", "content": f"{token} fact {n}"} for n in range(3)],
    }
    saved = await alice.http.post(f"/v1/sessions/{ids['session']}/save", json=save)
    assert saved.status_code == 201, saved.text
    ids["page"] = saved.json()["page"]["slug"]
    ids["decision"] = f"adr-{tag}"
    decision = {
        "id": ids["decision"],
        "title": f"Use {token}",
        "context": token,
        "decision": f"We use {token}.",
    }
    assert (await alice.http.post("/v1/decisions", json=decision)).status_code == 201
    constraint = {"title": f"Keep {token}", "description": f"{token} stays."}
    assert (await alice.http.post("/v1/constraints", json=constraint)).status_code == 201
    docs = {"capabilities": [f"Brews {token}."], "baseInstructions": f"You like {token}."}
    assert (await alice.http.put("/v1/agents/helper/docs", json=docs)).status_code == 200
    alices_agent = await make_caller(Role.AGENT, agent_id="helper", user_id=alice.user_id)
    claim = claim or f"{token} is on port 8080."
    ids |= await correct_and_propose(alice, alices_agent, f"agent-{tag}", claim)
    return ids


async def snapshot(alice: Caller, ids: dict[str, str]) -> list[Any]:
    """Everything of alice's the sweep could touch, as alice reads it."""
    paths = [
        f"/v1/knowledge/{ids['note']}",
        f"/v1/knowledge/{ids['note2']}",
        f"/v1/knowledge/{ids['note']}/connections",
        f"/v1/threads/{ids['thread']}",
        f"/v1/threads/{ids['thread2']}",
        f"/v1/threads/{ids['thread']}/messages",
        "/v1/knowledge",
        "/v1/insights",
        f"/v1/jobs/{ids['job']}",
        f"/v1/sessions/{ids['session']}",
        f"/v1/sessions/{ids['session']}/replay",
        "/v1/sessions",
        "/v1/pending-actions",
        "/v1/profile",
        "/v1/mutations",
        "/v1/corrections",
        "/v1/proposals",
        f"/v1/proposals/{ids['proposal']}",
        "/v1/goals",
        f"/v1/goals/{ids['goal']}",
        "/v1/skills",
        f"/v1/skills/{ids['skill']}",
        "/v1/wiki",
        f"/v1/wiki/{ids['page']}",
        "/v1/decisions",
        f"/v1/decisions/{ids['decision']}",
        "/v1/constraints",
        "/v1/patterns",
        f"/v1/agents/{ids['agent']}/docs",
        f"/v1/agents/{ids['agent']}/instructions",
    ]
    return await read_all(alice, paths)


async def read_all(caller: Caller, paths: list[str]) -> list[Any]:
    """Each path as ``caller`` reads it (every one must answer 200): a state to compare."""
    answers = [await caller.http.get(path) for path in paths]
    assert all(a.status_code == 200 for a in answers), [a.text for a in answers]
    return [a.json() for a in answers]


async def every_item(caller: Caller, path: str) -> list[dict[str, Any]]:
    """Every item of a list, following its pages."""
    items: list[dict[str, Any]] = []
    params: dict[str, Any] = {"limit": 200}
    while True:
        answer = await caller.http.get(path, params=params)
        assert answer.status_code == 200, (path, answer.text)
        page = answer.json()
        items += page["items"]
        if not page.get("nextCursor"):
            return items
        params["cursor"] = page["nextCursor"]


async def state_outside(
    alice: Caller, ids: dict[str, str], tags: tuple[str, ...], agent: str
) -> dict[str, Any]:
    """The user's whole state outside the reach of a key scoped to ``tags`` of ``agent``, as
    alice reads it, field by field: the notes outside the scope with their edges, the skills,
    goals, sessions (with their tool calls), pages and mutations another key wrote, insights,
    corrections with their acknowledgements, pending actions, proposals, the profile, threads
    with their messages, project context and agent docs. What that agent made itself is left
    out (it may make its own); a skill's use (:data:`SKILL_USE`) too."""
    notes = [n for n in await every_item(alice, "/v1/knowledge") if not set(n.get("tags") or ()) & set(tags)]
    state: dict[str, Any] = {}
    for note in notes:
        state[f"note {note['id']}"] = (await alice.http.get(f"/v1/knowledge/{note['id']}")).json()
        state[f"edges {note['id']}"] = await every_item(alice, f"/v1/knowledge/{note['id']}/connections")
    for skill in await every_item(alice, "/v1/skills"):
        if skill["createdBy"].get("agentId") != agent:
            full = (await alice.http.get(f"/v1/skills/{skill['id']}")).json()
            state[f"skill {skill['id']}"] = {k: v for k, v in full.items() if k not in SKILL_USE}
    for path, by in (("/v1/goals", "createdBy"), ("/v1/sessions", None), ("/v1/wiki", None),
                     ("/v1/mutations", "actor")):  # fmt: skip
        state[path] = [
            item for item in await every_item(alice, path)
            if (item[by] if by else item).get("agentId") != agent
        ]  # fmt: skip
    for session in state["/v1/sessions"]:
        state[f"replay {session['id']}"] = await every_item(alice, f"/v1/sessions/{session['id']}/replay")
    for path in ("/v1/insights", "/v1/corrections", "/v1/pending-actions", "/v1/proposals", "/v1/threads",
                 "/v1/decisions", "/v1/constraints", "/v1/patterns"):  # fmt: skip
        state[path] = await every_item(alice, path)
    for thread in state["/v1/threads"]:
        state[f"messages {thread['id']}"] = await every_item(alice, f"/v1/threads/{thread['id']}/messages")
    state["profile"] = (await alice.http.get("/v1/profile")).json()
    state["docs"] = (await alice.http.get(f"/v1/agents/{ids['agent']}/docs")).json()
    return state


#: A swept call: method, URL, whether it named one of the owner's things in its path, body.
Call = tuple[str, str, list[str], Any]


async def sweep(
    document: dict[str, Any],
    caller: Caller,
    ids: dict[str, str],
    exempt: dict[tuple[str, str], str],
    *,
    same_user: bool = False,
) -> tuple[list[tuple[Call, httpx.Response]], list[str]]:
    """Call every operation of the live document but ``exempt`` as ``caller``, each path
    parameter and id-like body field naming one of the owner's ``ids`` (and, for a caller of
    the owner's own user, the creates of :data:`BODY_IDS` aimed at the owner's things); the
    answers, and the operations it could not place (a ``{id}`` of a kind RESOURCES does not
    know)."""
    answers: list[tuple[Call, httpx.Response]] = []
    unplaced: list[str] = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if (method, path) in exempt:
                continue
            params = [p["name"] for p in operation.get("parameters", []) if p["in"] == "path"]
            url = path
            for name in params:
                if name == "id":
                    resource = RESOURCES.get(path.split("/")[2])
                    if resource is None:
                        unplaced.append(f"{method.upper()} {path}")
                        break
                    value = ids[resource]
                elif name in NAMED:
                    value = ids[NAMED[name]]
                else:
                    declared = next(p for p in operation["parameters"] if p["name"] == name)
                    schema = resolve_schema(document, declared["schema"])
                    value = schema["enum"][0] if "enum" in schema else "x"
                url = url.replace("{" + name + "}", value)
            else:
                schema = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
                body = example(document, schema["schema"], ids) if schema else None
                if same_user and method == "post" and path in BODY_IDS and isinstance(body, dict):
                    body["id"] = ids[BODY_IDS[path]]
                answer = await caller.http.request(method, url, json=body)
                answers.append(((method, url, params, body), answer))
    return answers, unplaced
