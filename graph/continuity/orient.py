"""orient: one call that wakes an agent up, in place of the chain of searches a fresh agent
would otherwise make by hand.

One read query (``queries/continuity/orient``) returns what the answer is built from; the
schema check behind ``syncStatus`` (the same one ``/ready`` makes) is kept for a few
seconds per process, so a burst of session starts does not repeat it.

* ``syncStatus``: Neo4j reachable, the schema and its indexes as this build needs them,
  counts, and the time of the user's last write. For a key with an entity scope, the notes
  counted are the scope's, and the user's writes and last write are ``None`` (not its to see).
* ``activeFocus``: the top goal and this agent's last session (its topics, its page).
* ``hotEntities``: the notes the latest writes touched most, from the journal.
* ``goalStack``: the active goals, newest on top.
* ``lastCorrections``: corrections by a person this session has not acknowledged.
* ``relevantSkills``: skills whose name, trigger or tags share words with the goal, the top
  goal or the last session's topics, each with why it matched.
* ``nextLikelyCalls``: what to call next and why (acknowledge corrections, start a session,
  catch up on a prior one, resolve pending actions, ...).
"""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

from graph.core.db import Database
from graph.core.principals import Principal, Role, Scope
from graph.core.schema import check_schema
from graph.core.values import plain
from graph.knowledge.valid_time import millis_now

#: The latest writes whose notes count as hot.
HOT_WINDOW = 500
HOT_LIMIT = 10
GOAL_LIMIT = 10
CORRECTION_LIMIT = 10
SKILL_LIMIT = 3
#: How long one schema check serves orient calls.
SCHEMA_TTL_SECONDS = 10.0
_WORD = re.compile(r"[a-z0-9]+")
#: Words too common to say a skill fits.
STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "how",
        "i",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "so",
        "that",
        "the",
        "this",
        "to",
        "up",
        "was",
        "we",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "you",
        "your",
    ]
)


def words(text: str | None) -> set[str]:
    """The content words of a text, lower-cased, with a plural's ``s`` dropped."""
    found = set()
    for word in _WORD.findall((text or "").lower()):
        if word in STOP_WORDS or len(word) < 3:
            continue
        found.add(word[:-1] if word.endswith("s") and len(word) > 3 else word)
    return found


def relevant_skills(
    skills: list[dict[str, Any]], wanted: dict[str, str], starting: bool
) -> list[dict[str, Any]]:
    """Skills that match what the agent is after (``wanted``: where each text came from ->
    the text), best first, each with why. At a session's start, a skill tagged ``start``
    fits too."""
    asked = {source: words(text) for source, text in wanted.items() if text}
    ranked = []
    for skill in skills:
        tags = {t.lower() for t in skill.get("tags") or []}
        reasons, score = [], 0.0
        for source, found in asked.items():
            by_tag = sorted(t for t in tags if words(t) & found)
            by_text = sorted((words(skill["name"]) | words(skill.get("trigger"))) & found - set(by_tag))
            if by_tag:
                reasons.append(f"tag {', '.join(repr(t) for t in by_tag)} matches {source}")
                score += 2 * len(by_tag)
            if by_text:
                reasons.append(
                    f"{', '.join(repr(w) for w in by_text[:4])} in its name or trigger matches {source}"
                )
                score += len(by_text)
        if starting and "start" in tags:
            reasons.append("tag 'start': this is a session's start")
            score += 1.5
        if score:
            ranked.append((score, skill.get("invocationCount") or 0, skill, "; ".join(reasons)))
    ranked.sort(key=lambda r: (-r[0], -r[1], r[2]["id"]))
    return [{"id": s["id"], "name": s["name"], "why": why} for _, _, s, why in ranked[:SKILL_LIMIT]]


def _day(iso: str | None) -> str:
    """The day of an ISO-8601 time."""
    return iso[:10] if iso else "?"


class OrientService:
    """Answers orient for the calling principal."""

    def __init__(self, db: Database, dimension: int, *, correction_window_days: float = 7.0) -> None:
        self._db = db
        self._dimension = dimension
        self._window_seconds = int(correction_window_days * 86_400)
        self._schema: tuple[float, dict[str, Any]] | None = None

    async def _schema_state(self) -> dict[str, Any]:
        now = time.monotonic()
        if self._schema is None or self._schema[0] < now:
            report = await check_schema(self._db, self._dimension)
            self._schema = (now + SCHEMA_TTL_SECONDS, {"ok": report.ok, "problems": report.problems})
        return self._schema[1]

    async def orient(self, principal: Principal, goal: str | None = None) -> dict[str, Any]:
        """The wake-up answer for ``principal`` (optionally after ``goal``)."""
        goal = " ".join(goal.split()) if goal and goal.strip() else None
        [row] = await self._db.read(
            "queries/continuity/orient",
            userId=principal.user_id,
            validAt=millis_now(),
            agentId=principal.agent_view(principal.agent_id),
            viewAgent=principal.agent_view(None),
            sessionId=principal.session_id,
            scope=Scope.of(principal.scope),
            windowSeconds=self._window_seconds,
            hotWindow=HOT_WINDOW,
            hotLimit=HOT_LIMIT,
            goalLimit=GOAL_LIMIT,
            correctionLimit=CORRECTION_LIMIT,
        )
        schema = await self._schema_state()
        found: dict[str, Any] = plain(dict(row))
        last = found["lastSession"]
        stack = found["goalStack"]
        top = stack[0] if stack else None
        wanted = {"your goal": goal or "", "the top goal": top["title"] if top else ""}
        if last:
            wanted["your last session's topics"] = " ".join(
                [last.get("topic") or "", *(last.get("topics") or [])]
            )
        # Every skill's name, trigger and tags are read for words: that grows with the skills
        # stored, so a worker thread does it, not the event loop.
        skills = await asyncio.to_thread(relevant_skills, found["skills"], wanted, True)
        return {
            "syncStatus": {
                "neo4j": "reachable",
                "schema": schema,
                "counts": {
                    "notes": found["notes"] or 0,
                    "sessions": found["sessions"],
                    "activeGoals": found["activeGoals"],
                    "skills": len(found["skills"]),
                    "openPendingActions": found["openActions"],
                    "waitingProposals": found["waitingProposals"],
                    "unacknowledgedCorrections": found["unacknowledged"],
                    "writes": (found["writes"] or 0) if principal.scope is None else None,
                },
                "lastWriteAt": found["lastWriteAt"],
            },
            "activeFocus": {
                "goal": goal,
                "topGoal": top,
                "lastSession": last,
                "topics": _topics(last),
            },
            "hotEntities": found["hotEntities"],
            "goalStack": stack,
            "lastCorrections": found["lastCorrections"],
            "relevantSkills": skills,
            "nextLikelyCalls": self._next_calls(principal, goal, found, skills),
        }

    @staticmethod
    def _next_calls(
        principal: Principal, goal: str | None, found: dict[str, Any], skills: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        calls: list[dict[str, Any]] = []
        waiting = found["unacknowledged"]
        if waiting:
            first = found["lastCorrections"][0]
            calls.append({
                "call": f"POST /v1/corrections/{first['id']}/ack",
                "why": f"{waiting} correction{'s' if waiting > 1 else ''} by a person "
                       f"{'wait' if waiting > 1 else 'waits'} for this session to acknowledge "
                       f"(the newest, on {first['targetId']!r}: {', '.join(first['fields'])})",
            })  # fmt: skip
        if principal.session_id is None:
            calls.append({
                "call": "POST /v1/sessions",
                "why": "no session is named (X-Session-ID): start one, so what you write and acknowledge "
                       "is tied to it and it can be saved at the end",
            })  # fmt: skip
        last = found["lastSession"]
        if last is not None:
            when = _day(last.get("endedAt") or last.get("startedAt"))
            said = f"{last['topic']!r}, " if last.get("topic") else ""
            calls.append({
                "call": "POST /v1/catch-up",
                "why": f"your last session ({said}{last['status']} {when}) is before this one: see what "
                       "changed since it",
            })  # fmt: skip
        if goal:
            calls.append(
                {"call": "POST /v1/brief", "why": f"prime for {goal!r}: notes, insights and pages on it"}
            )
            if not any(words(goal) <= words(g["title"]) for g in found["goalStack"]):
                calls.append({"call": "POST /v1/goals", "why": f"{goal!r} is not on the goal stack yet"})
        if open_actions := found["openActions"]:
            oldest = found["oldestActions"][0]
            calls.append({
                "call": "GET /v1/pending-actions",
                "why": f"{_count(open_actions, 'pending action')} left open, the oldest since "
                       f"{_day(oldest['createdAt'])}: {oldest['text']!r}",
            })  # fmt: skip
        if (proposals := found["waitingProposals"]) and principal.role is Role.HUMAN:
            calls.append({
                "call": "GET /v1/proposals?status=pending",
                "why": f"{_count(proposals, 'agent write')} overriding a correction wait for a person",
            })  # fmt: skip
        if skills:
            calls.append({"call": f"POST /v1/skills/{skills[0]['id']}/load", "why": skills[0]["why"]})
        return calls


def _count(n: int, thing: str) -> str:
    return f"{n} {thing}{'s' if n != 1 else ''}"


def _topics(last: dict[str, Any] | None) -> list[str]:
    if last is None:
        return []
    topics = list(last.get("topics") or [])
    return topics or ([last["topic"]] if last.get("topic") else [])
