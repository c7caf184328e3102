"""Saved sessions over HTTP against the real Neo4j: the page and its insights, a stable slug,
repeats and rewrites, bad saves, and concurrent saves of one session."""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import re
import uuid

from graph.core.principals import Role, Scope
from tests.integration.conftest import MakeCaller

INSIGHTS = [
    {"type": "decision", "content": "Ship the importer behind a flag."},
    {"type": "fact", "content": "The staging Neo4j runs 5.26 on port 7688."},
    {"type": "question", "content": "Should exports include embeddings by default?"},
]


async def test_a_saved_session_is_a_page_with_its_insights(make_caller: MakeCaller) -> None:
    agent = await make_caller(Role.AGENT, agent_id="coder")
    started = await agent.http.post("/v1/sessions", json={"topic": "Importer: resumable runs"})
    session = started.json()["session"]["id"]
    save = {
        "summary": "Made the importer resumable.",
        "decisions": ["Checkpoint every 1,000 records"],
        "learnings": ["Neo4j MERGE on the key makes re-runs idempotent"],
        "openQuestions": ["How to report skipped records?"],
        "insights": INSIGHTS,
    }
    saved = await agent.http.post(f"/v1/sessions/{session}/save", json=save)
    assert saved.status_code == 201, saved.text
    page = saved.json()["page"]
    assert saved.json()["outcome"] == "created"
    assert re.fullmatch(r"session-\d{4}-\d{2}-\d{2}-importer-resumable-runs-[0-9a-f]{6}", page["slug"])
    assert page["sessionId"] == session and page["agentId"] == "coder"
    assert page["title"] == "Importer: resumable runs" and page["savedCount"] == 1
    assert [i["content"] for i in page["insights"]] == [i["content"] for i in INSIGHTS]
    assert page["markdown"].startswith("---\ntype: concept\nsession: true\n")
    assert "## Open questions\n- How to report skipped records?" in page["markdown"]
    # The insights are insights: listed, with the page as their provenance.
    listed = (await agent.http.get("/v1/insights")).json()["items"]
    mine = {i["content"]: i for i in listed if i.get("pageSlug") == page["slug"]}
    assert set(mine) == {i["content"] for i in INSIGHTS}
    assert all(i["sessionId"] == session and i.get("threadId") is None for i in mine.values())
    assert (await agent.http.get(f"/v1/wiki/{page['slug']}")).json() == page

    # The same save again changes nothing; another rewrites the page under the same slug.
    again = await agent.http.post(f"/v1/sessions/{session}/save", json=save)
    assert again.status_code == 200 and again.json()["outcome"] == "unchanged"
    assert again.json()["page"] == page
    # An insight listed twice is saved once: the same save as without the repeat.
    repeat = {**INSIGHTS[1], "content": f"  {INSIGHTS[1]['content']} ", "confidence": 0.5}
    twice = await agent.http.post(
        f"/v1/sessions/{session}/save", json={**save, "insights": [*INSIGHTS, repeat]}
    )
    assert twice.status_code == 200 and twice.json()["outcome"] == "unchanged", twice.text
    assert twice.json()["page"] == page
    changed = {**save, "summary": "Made the importer resumable and quiet.", "insights": INSIGHTS[:2] + [
        {"type": "preference", "content": "The user wants JSON lines when not on a terminal."}
    ]}  # fmt: skip
    rewritten = await agent.http.post(f"/v1/sessions/{session}/save", json=changed)
    assert rewritten.status_code == 200 and rewritten.json()["outcome"] == "updated"
    new = rewritten.json()["page"]
    assert new["slug"] == page["slug"] and new["savedCount"] == 2 and new["savedAt"] >= page["savedAt"]
    assert [i["id"] for i in new["insights"][:2]] == [i["id"] for i in page["insights"][:2]]
    contents = {i["content"] for i in (await agent.http.get("/v1/insights")).json()["items"]}
    assert INSIGHTS[2]["content"] not in contents  # the dropped insight is gone
    assert "The user wants JSON lines when not on a terminal." in contents
    journal = (await agent.http.get("/v1/mutations", params={"targetId": page["slug"]})).json()["items"]
    assert [m["op"] for m in journal] == ["wiki.save", "wiki.save"]
    assert journal[0]["before"]["summary"] == "Made the importer resumable."

    # The list, newest save first, one agent's with agentId.
    other = await agent.http.post("/v1/sessions", json={"topic": "Exporter"})
    other_id = other.json()["session"]["id"]
    assert (
        await agent.http.post(f"/v1/sessions/{other_id}/save", json={"summary": "Wrote it."})
    ).status_code == 201
    pages = (await agent.http.get("/v1/wiki")).json()["items"]
    assert [p["sessionId"] for p in pages] == [other_id, session]
    first = (await agent.http.get("/v1/wiki", params={"limit": 1})).json()
    rest = (await agent.http.get("/v1/wiki", params={"cursor": first["nextCursor"]})).json()
    assert [p["slug"] for p in first["items"] + rest["items"]] == [p["slug"] for p in pages]
    assert (await agent.http.get("/v1/wiki", params={"agentId": "somebody-else"})).json()["items"] == []


async def test_bad_saves_are_refused_and_change_nothing(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    session = (await alice.http.post("/v1/sessions", json={"agentId": "a"})).json()["session"]["id"]
    cases = {
        "insights": {"summary": "S.", "insights": INSIGHTS[:2]},
        "insights.0.type": {"summary": "S.", "insights": [{**INSIGHTS[0], "type": "hunch"}, *INSIGHTS[1:]]},
        "summary": {"summary": "   "},
        "decisions.0": {"summary": "S.", "decisions": [""]},
    }
    for field, body in cases.items():
        answer = await alice.http.post(f"/v1/sessions/{session}/save", json=body)
        assert answer.status_code == 422, (field, answer.text)
        assert answer.json()["error"]["field"] == field, (field, answer.json())
    six = {"summary": "S.", "insights": INSIGHTS * 2}
    assert (await alice.http.post(f"/v1/sessions/{session}/save", json=six)).status_code == 422
    missing = await alice.http.post("/v1/sessions/nope/save", json={"summary": "S."})
    assert missing.status_code == 404
    assert (await alice.http.get("/v1/wiki")).json()["items"] == []
    assert (await alice.http.get("/v1/wiki/nope")).status_code == 404
    assert not [i for i in (await alice.http.get("/v1/insights")).json()["items"] if i.get("pageSlug")]


async def test_concurrent_saves_of_one_session_make_one_page(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    agents = [await make_caller(Role.AGENT, agent_id="a", user_id=alice.user_id) for _ in range(3)]
    session = (await alice.http.post("/v1/sessions", json={"agentId": "a"})).json()["session"]["id"]
    same = {"summary": "Done.", "insights": INSIGHTS}
    answers = await asyncio.gather(
        *[c.http.post(f"/v1/sessions/{session}/save", json=same) for c in [alice, *agents] for _ in range(2)]
    )
    assert sorted(a.json()["outcome"] for a in answers) == ["created"] + ["unchanged"] * 7
    different = [{"summary": f"Version {n}."} for n in range(6)]
    answers = await asyncio.gather(
        *[
            agents[n % 3].http.post(f"/v1/sessions/{session}/save", json=body)
            for n, body in enumerate(different)
        ]
    )
    assert all(a.status_code == 200 and a.json()["outcome"] == "updated" for a in answers)
    [page] = (await alice.http.get("/v1/wiki")).json()["items"]
    assert page["savedCount"] == 7 and page["insights"] == []
    assert {a.json()["page"]["slug"] for a in answers} == {page["slug"]}
    assert page["summary"] in {b["summary"] for b in different}


def colliding_ids(prefix: str) -> tuple[str, str]:
    """Two session ids whose sha256 share their first 6 hex (what a slug used to end in)."""
    seen: dict[str, str] = {}
    for n in itertools.count():
        candidate = f"{prefix}{n}"
        head = hashlib.sha256(candidate.encode()).hexdigest()[:6]
        if head in seen:
            return seen[head], candidate
        seen[head] = candidate
    raise AssertionError("unreachable")


async def test_a_page_is_its_sessions_own_whatever_its_slug(make_caller: MakeCaller) -> None:
    writer = await make_caller(Role.AGENT, agent_id="writer")
    proj = Scope(tags=("proj",))
    scoped = await make_caller(Role.AGENT, agent_id="bot", user_id=writer.user_id, scope=proj)
    theirs, mine = colliding_ids(f"cr{uuid.uuid4().hex[:6]}v")
    topic = {"topic": "Payroll key rotation"}
    assert (await writer.http.post("/v1/sessions", json={"id": theirs, **topic})).status_code == 201
    kept = await writer.http.post(
        f"/v1/sessions/{theirs}/save", json={"summary": "Rotated the payroll keys.", "insights": INSIGHTS}
    )
    assert kept.status_code == 201
    assert (await scoped.http.post("/v1/sessions", json={"id": mine, **topic})).status_code == 201
    lie = {"summary": "Nothing happened; keys never need rotating."}
    saved = await scoped.http.post(f"/v1/sessions/{mine}/save", json=lie)
    assert saved.status_code == 201 and saved.json()["outcome"] == "created", saved.text
    page = saved.json()["page"]
    slug = kept.json()["page"]["slug"]
    # The same readable start, a longer hash: another page, of the scoped key's own session.
    assert page["sessionId"] == mine and page["slug"] != slug
    assert page["slug"].startswith(slug[:-6]) and len(page["slug"]) == len(slug) + 10
    after = (await writer.http.get(f"/v1/wiki/{slug}")).json()
    assert after == kept.json()["page"]
    # Saving again finds each session's own page.
    again = await scoped.http.post(f"/v1/sessions/{mine}/save", json={**lie, "decisions": ["None."]})
    assert again.json()["outcome"] == "updated" and again.json()["page"]["slug"] == page["slug"]
    assert (await writer.http.get(f"/v1/wiki/{slug}")).json() == kept.json()["page"]


async def test_a_scoped_keys_page_keeps_out_of_the_users_insights(make_caller: MakeCaller) -> None:
    person = await make_caller()
    proj = Scope(tags=("proj",))
    scoped = await make_caller(Role.AGENT, agent_id="bot", user_id=person.user_id, scope=proj)
    same_agent = await make_caller(Role.AGENT, agent_id="bot", user_id=person.user_id)
    assert (await scoped.http.post("/v1/sessions", json={"id": "s1", "topic": "Payroll"})).status_code == 201
    save = {"summary": "Payroll secrets live in the proj vault.", "insights": INSIGHTS}
    refused = await scoped.http.post("/v1/sessions/s1/save", json=save)
    assert refused.status_code == 403 and refused.json()["error"]["field"] == "insights", refused.text
    assert (await person.http.get("/v1/insights")).json()["items"] == []
    assert (await person.http.get("/v1/wiki")).json()["items"] == []
    saved = await scoped.http.post("/v1/sessions/s1/save", json={"summary": save["summary"]})
    assert saved.status_code == 201 and saved.json()["page"]["insights"] == []
    # A page an unscoped key saved with insights: a scoped save rewrites it, its insights stay.
    assert (await same_agent.http.post("/v1/sessions/s1/save", json=save)).status_code == 200
    before = {i["id"] for i in (await person.http.get("/v1/insights")).json()["items"]}
    assert len(before) == 3
    rewritten = await scoped.http.post("/v1/sessions/s1/save", json={"summary": "Rewritten."})
    assert rewritten.status_code == 200 and rewritten.json()["page"]["summary"] == "Rewritten."
    assert {i["id"] for i in rewritten.json()["page"]["insights"]} == before
    assert {i["id"] for i in (await person.http.get("/v1/insights")).json()["items"]} == before
