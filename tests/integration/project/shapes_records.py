"""The rest of what a user's memory holds about a subject, generated: conversations (messages,
the insights the offline extractor draws from them and the notes the feedback loop makes of
those), an agent's sessions (topic, opening message, tool calls, the summary with its topics,
key decisions and pending actions) saved as wiki pages, goals with a subgoal, skills, the
profile's preferences and background, and an agent's docs."""

from __future__ import annotations

import asyncio

from tests.integration.project.shapes import Subject, World
from tests.integration.project.shapes_knowledge import Words

#: What a person says in a conversation, so that the offline extractor (rules-v1) finds a
#: preference, a decision, a fact and a question, each a sentence of its own.
SAID = (
    "I prefer to meet {name} at the {place} in the morning.",
    "We decided that {name} leads the {topic} work from now on.",
    "I work at the {place} with {name} on Tuesdays.",
    "Should {name} sign the {topic} forms before the audit?",
)


async def finished(world: World, job_id: str) -> dict[str, object]:
    """A job, polled until it is done (with a deadline)."""
    for _ in range(600):
        job = await world.send(world.person, "GET", f"/v1/jobs/{job_id}")
        if job["status"] in ("done", "failed"):
            assert job["status"] == "done", job
            return dict(job)
        await asyncio.sleep(0.05)
    raise AssertionError(f"job {job_id} did not finish in 30 s")


async def conversation(world: World, s: Subject, w: Words, thread: str | None = None) -> str:
    """A thread (its topic naming the subject or not) whose messages name the subject in every
    sentence the extractor takes, and one that does not; the feedback loop then makes insights
    and notes of them. ``thread``: carry on an earlier one."""
    if thread is None:
        thread = world.note(s, "thread", s.id("thread"))
        await world.send(
            world.person, "POST", "/v1/threads", {"id": thread, "topic": f"Planning with {s.say()}"}
        )
    said = [
        {"role": "user", "content": text.format(name=s.say(), place=w.places[2], topic=w.topics[0])}
        for text in s.rng.sample(SAID, 3)
    ]
    said.insert(
        s.rng.randint(0, 3), {"role": "assistant", "content": f"Noted, the {w.topics[2]} is on the list."}
    )
    await world.send(world.person, "POST", f"/v1/threads/{thread}/messages", {"messages": said})
    job = await world.send(world.person, "POST", f"/v1/threads/{thread}/feedback-loop", None, 202)
    await finished(world, job["jobId"])
    return thread


async def session(world: World, s: Subject, w: Words, thread: str | None) -> str:
    """An agent's session about the subject: its topic and opening message, tool calls (the
    name in the arguments, in the result, or not at all), its end (summary, topics, key
    decisions, pending actions with and without the name), saved as a wiki page with insights."""
    session_id = world.note(s, "session", s.id("session"))
    start = {
        "id": session_id,
        "topic": f"Helping {s.say()} with the {w.topics[1]}",
        "openingMessage": f"Where does {s.say()} keep the {w.topics[1]} key?",
    }
    if thread is not None:
        start["threadId"] = thread
    await world.send(world.agent, "POST", "/v1/sessions", start)
    calls = [
        {
            "tool": "search",
            "arguments": {"query": f"{s.say()} {w.topics[1]}", "limit": 5},
            "resultSummary": "3 notes",
        },
        {"tool": "read_note", "arguments": {"id": "x"}, "resultSummary": f"A note about {s.say()}."},
        {"tool": "clock", "arguments": {}, "resultSummary": "It is noon."},
    ]
    await world.send(world.agent, "POST", f"/v1/sessions/{session_id}/tool-calls", {"items": calls})
    end = {
        "summary": f"Found where {s.say()} keeps the {w.topics[1]} key.",
        "topics": [f"{s.say()}'s keys", w.topics[1]],
        "keyDecisions": [f"{s.say()} keeps the spare key", "No copies"],
        "pendingActions": [f"Ask {s.say()} for the spare {w.topics[1]} key", f"Label the {w.topics[2]}"],
    }
    ended = await world.send(world.agent, "POST", f"/v1/sessions/{session_id}/end", end)
    for action in ended["pendingActions"]:
        world.note(s, "pending", action["id"])
    learned = [
        {"type": "fact", "content": f"{s.say()} keeps the {w.topics[1]} key at the {w.places[1]}."},
        {"type": "fact", "content": f"{s.say()} answers mail within the hour."},
        {"type": "preference", "content": f"The {w.topics[2]} should stay locked at night."},
    ]
    save = {
        "summary": f"Settled the {w.topics[1]} keys with {s.say()}.",
        "learnings": [f"{s.say()} answers mail fast"],
        "decisions": [f"{s.say()} keeps the key"],
        "openQuestions": ["Who has the spare?"],
        "insights": learned,
    }
    page = await world.send(world.agent, "POST", f"/v1/sessions/{session_id}/save", save)
    world.note(s, "page", page["page"]["slug"])
    return session_id


async def goals_and_skills(world: World, s: Subject, w: Words) -> None:
    """A goal and a subgoal naming the subject (the subgoal completed with an outcome that names
    it), and a skill that names it."""
    goal = await world.send(
        world.person, "POST", "/v1/goals", {"id": s.id("goal"), "title": f"Hand {s.say()} the {w.topics[0]}"}
    )
    world.note(s, "goal", goal["id"])
    sub = {"id": s.id("goal"), "title": f"Book a slot with {s.say()}", "parentId": goal["id"]}
    await world.send(world.person, "POST", "/v1/goals", sub)
    world.note(s, "goal", sub["id"])
    await world.send(
        world.person, "POST", f"/v1/goals/{sub['id']}/complete", {"outcome": f"{s.say()} came on time."}
    )
    skill: dict[str, object] = {
        "id": s.id("skill"),
        "name": f"Reach {s.say()}",
        "bodyMd": f"Call {s.say()} before noon; mail after.",
        "trigger": f"when {s.say()} is needed",
        "tags": ["contacts"],
    }
    await world.send(world.person, "POST", "/v1/skills", skill)
    world.note(s, "skill", str(skill["id"]))


async def profile(world: World, s: Subject, w: Words, background: bool) -> None:
    """A preference naming the subject (and, for one subject, the background)."""
    body: dict[str, object] = {"preferences": {f"contact-{s.label}": f"{s.say()} at the {w.places[0]}"}}
    if background:
        body["background"] = f"Works at the {w.places[0]} alongside {s.say()}."
    await world.send(world.person, "PATCH", "/v1/profile", body)


async def agent_docs(world: World, named: list[Subject], instructed: Subject, agent: str) -> None:
    """The agent's docs: a capability and a constraint naming each of ``named``, plain lines,
    and base instructions naming ``instructed``."""
    docs = {
        "capabilities": [f"Knows the schedule of {s.say()}." for s in named] + ["Books rooms."],
        "constraints": [f"Never shares the address of {s.say()}." for s in named] + ["Stays polite."],
        "baseInstructions": f"You help the team around {instructed.say()}.",
    }
    await world.send(world.person, "PUT", f"/v1/agents/{agent}/docs", docs)


async def records(world: World, s: Subject, w: Words) -> None:
    """Every shape of conversations and working records for one subject."""
    thread = await conversation(world, s, w)
    await session(world, s, w, thread if s.rng.random() < 0.5 else None)
    await goals_and_skills(world, s, w)
