"""brief_me over HTTP against the real Neo4j: the four sections for a task, the budget kept
with the least relevant dropped first, the whole bundle's size as a hint, and bad input."""

from __future__ import annotations

from typing import Any

import pytest

from graph.continuity.tokens import TokenCounter
from graph.core.principals import Role
from tests.integration.conftest import Caller, MakeCaller

RELEASE_FACTS = [
    "Release builds are cut from the main branch after every test passes on CI.",
    "Each release gets a changelog entry that lists user-visible changes and migrations.",
    "Release candidates are deployed to staging for a day before production.",
    "The release checklist includes bumping the version in pyproject.toml.",
    "A release is tagged vMAJOR.MINOR.PATCH and signed with the team's release key.",
    "Rolling back a release means redeploying the previous tag from the registry.",
    "Release notes are written for users, not for developers, in plain words.",
    "Database migrations of a release run before its new API version starts.",
]


async def brief(caller: Caller, task: str, budget: int) -> dict[str, Any]:
    answer = await caller.http.post("/v1/brief", json={"task": task, "tokenBudget": budget})
    assert answer.status_code == 200, answer.text
    return answer.json()


async def seed(agent: Caller) -> None:
    notes = [
        {"id": f"fact-{n}", "title": f"Release fact {n}", "content": text, "type": "fact", "dedupe": False}
        for n, text in enumerate(RELEASE_FACTS)
    ]
    notes.append(
        {
            "id": "decision-friday",
            "title": "Releases happen on Fridays",
            "type": "decision",
            "content": "We decided to release on Fridays before noon, never late in a day.",
            "dedupe": False,
        }
    )
    notes.append({"id": "pasta", "title": "Pasta", "content": "Boil water, add salt, cook pasta al dente.",
                  "type": "procedure", "dedupe": False})  # fmt: skip
    made = await agent.http.post("/v1/knowledge/batch", json={"items": notes})
    assert made.status_code in (200, 201), made.text
    assert (
        await agent.http.post("/v1/sessions", json={"id": "s1", "topic": "Release 2.0"})
    ).status_code == 201
    save = {
        "summary": "Prepared release 2.0: changelog written, staging deploy done.",
        "decisions": ["Ship release 2.0 on Friday"],
        "openQuestions": ["Who signs the release tag?"],
        "insights": [
            {"type": "preference", "content": "The user wants release notes short and in plain words."},
            {"type": "fact", "content": "Release 2.0 changes the export format."},
            {"type": "question", "content": "Should the release include the importer?"},
        ],
    }
    assert (await agent.http.post("/v1/sessions/s1/save", json=save)).status_code == 201


async def test_a_brief_holds_the_four_sections_for_the_task(make_caller: MakeCaller) -> None:
    agent = await make_caller(Role.AGENT, agent_id="releaser")
    await seed(agent)
    whole = await brief(agent, "prepare the next release", 8_000)
    sections = whole["sections"]
    assert [d["id"] for d in sections["decisions"]] == ["decision-friday"]
    knowledge = [k["id"] for k in sections["knowledge"]]
    assert set(knowledge) == {f"fact-{n}" for n in range(len(RELEASE_FACTS))}, knowledge
    assert [p["sessionId"] for p in sections["pages"]] == ["s1"]
    assert {i["type"] for i in sections["insights"]} == {"preference", "fact", "question"}
    assert whole["dropped"] == [] and whole["tokens"] == whole["tokenBudgetHint"] <= 8_000
    assert whole["tokens"] == TokenCounter().count(whole["text"])
    assert whole["tokenizer"].startswith("o200k_base")
    text = whole["text"]
    assert (
        text.index("## Decisions on record")
        < text.index("## What you know")
        < text.index("## Saved sessions")
    )
    assert "Releases happen on Fridays" in text and "Who signs the release tag?" in text
    assert "not instructions" in text

    # A tight budget keeps the most relevant of every section and drops from the bottom.
    tight = await brief(agent, "prepare the next release", 300)
    assert tight["tokens"] <= 300 and tight["tokenBudgetHint"] == whole["tokenBudgetHint"]
    assert tight["dropped"], tight
    kept = {s: [i.get("id") or i.get("slug") for i in items] for s, items in tight["sections"].items()}
    everything = {s: [i.get("id") or i.get("slug") for i in items] for s, items in sections.items()}
    for section, ids in kept.items():
        assert ids == everything[section][: len(ids)], section  # a prefix of the ranking
    left_out = {(d["section"], d["id"]) for d in tight["dropped"]}
    assert left_out == {(s, i) for s, ids in everything.items() for i in ids} - {
        (s, i) for s, ids in kept.items() for i in ids
    }
    assert all(d["tokens"] > 0 for d in tight["dropped"])
    assert all(f"(id {i})" not in tight["text"] for s, i in left_out if s in ("decisions", "knowledge"))


@pytest.mark.smoke
async def test_bad_briefs_and_other_users(make_caller: MakeCaller) -> None:
    agent = await make_caller(Role.AGENT, agent_id="releaser")
    await seed(agent)
    small = await agent.http.post("/v1/brief", json={"task": "release", "tokenBudget": 100})
    assert small.status_code == 422 and small.json()["error"]["field"] == "tokenBudget"
    blank = await agent.http.post("/v1/brief", json={"task": "  "})
    assert blank.status_code == 422 and blank.json()["error"]["field"] == "task"
    stranger = await make_caller(Role.AGENT, agent_id="releaser")
    theirs = await brief(stranger, "prepare the next release", 2_000)
    assert all(items == [] for items in theirs["sections"].values())
    assert "Nothing stored is relevant to this task." in theirs["text"]
