"""The context bridge: what an agent is handed when a session starts, before the user's first
message.

Four sources, as the seed lists them: the agent's last N session summaries with this user
(newest first), every open pending action, memory on the opening topic (knowledge notes
and insights, through the same tenant-safe search the API serves), and the user profile.
They come back twice: as one system-level markdown block (``text``) and as structured
``sections`` holding exactly what the block holds.

The block is written as the past, not as orders: each session is dated and told in the
past tense, so an agent does not carry out an old instruction again; pending actions come
first, with their age and how often they were carried forward.

It fits a token budget, counted offline (:mod:`graph.continuity.tokens`). Pending actions
and the profile are kept whole where at all possible; the least relevant memory goes
first, then the oldest sessions, then the profile, and only then the newest pending
actions. Everything dropped is reported with what it would have cost.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from graph.continuity.agents import AgentRegistry, BridgeConfig
from graph.continuity.tokens import TokenCounter
from graph.conversations.insight_recall import close_enough
from graph.conversations.insights import InsightService
from graph.core.db import Database
from graph.core.embeddings import Embedder
from graph.core.errors import EmbeddingError, Forbidden
from graph.core.principals import Principal, Role
from graph.core.values import check_id, plain
from graph.knowledge.retrieval import RetrievalService
from graph.knowledge.views import author_mark

log = logging.getLogger(__name__)

#: Most open pending actions one bridge lists.
MAX_PENDING = 500
#: Fusion constant of the memory ranking (notes and insights, each ranked by its search).
RRF_K = 60
#: Sections in the order the seed lists them (the structured answer's order).
SECTIONS = ("recentSessions", "pendingActions", "memory", "profile")
#: The order in which the block gives up content to fit its budget.
DROP_ORDER = ("memory", "recentSessions", "profile", "pendingActions")


@dataclass
class Piece:
    """One droppable item of the block: a session, a pending action, a memory match, or
    the profile, with its rendered lines."""

    section: str
    id: str
    data: dict[str, Any]
    text: str
    tokens: int = 0


@dataclass
class Draft:
    """The block being fitted: its pieces by section, in the order they are shown."""

    header: str
    topic: str | None
    sections: dict[str, list[Piece]] = field(default_factory=dict)
    dropped: list[Piece] = field(default_factory=list)


DAY_MS = 86_400_000


@functools.lru_cache(maxsize=4096)
def _date(day: int) -> str:
    return datetime.fromtimestamp(day * 86_400, UTC).strftime("%Y-%m-%d")


def _day(epoch_millis: int) -> str:
    """The UTC date of a time in epoch milliseconds."""
    return _date(epoch_millis // DAY_MS)


def _age(epoch_millis: int, now: datetime) -> str:
    days = (int(now.timestamp() * 1000) - epoch_millis) // DAY_MS
    return "today" if days <= 0 else "1 day ago" if days == 1 else f"{days} days ago"


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    return text if text.endswith((".", "!", "?")) else text + "."


def _session_text(s: Mapping[str, Any]) -> str:
    facts = [f"{s['durationMinutes']} min"] if s.get("durationMinutes") is not None else []
    if s.get("messageCount"):
        facts.append(f"{s['messageCount']} messages")
    line = f"- On {_day(s['startedAt'])}" + (f" ({', '.join(facts)})" if facts else "")
    line += f", the session ended with this summary: {_sentence(s['summary'])}"
    if s.get("keyDecisions"):
        line += " Decided then: " + "; ".join(" ".join(d.split()) for d in s["keyDecisions"]) + "."
    if s.get("topics"):
        line += " Topics: " + ", ".join(s["topics"]) + "."
    return line


def _pending_text(p: Mapping[str, Any], now: datetime) -> str:
    text, created = " ".join(p["text"].split()), p["createdAt"]
    line = f"- {text} (left open {_age(created, now)}, on {_day(created)}"
    if p["carriedCount"]:
        line += f"; carried forward {p['carriedCount']} time{'s' if p['carriedCount'] > 1 else ''}"
    return line + f"; id {p['id']})"


def _memory_text(m: Mapping[str, Any]) -> str:
    if m["kind"] == "note":
        return f"- [note, {m['type']}] {m['title']}: {' '.join(m['content'].split())}{author_mark(m)}"
    said = m["extractedAt"][:10]  # an ISO-8601 time: its day
    origin = "a session saved on" if m.get("pageSlug") else "a conversation of"
    return f"- [insight, {m['type']}, from {origin} {said}] {' '.join(m['content'].split())}"


def _profile_text(profile: Mapping[str, Any]) -> str:
    lines = []
    if profile.get("background"):
        lines.append(f"Background: {' '.join(profile['background'].split())}")
    if profile["preferences"]:
        lines.append("Preferences:")
        lines.extend(f"- {name}: {value}" for name, value in profile["preferences"].items())
    return "\n".join(lines)


SECTION_TITLES: dict[str, Callable[[Draft, int], str]] = {
    "pendingActions": lambda d, n: f"## Open pending actions ({n}), oldest first",
    "recentSessions": lambda d, n: "## Earlier sessions with this user, newest first",
    "memory": lambda d, n: f'## What you know about "{d.topic}"',
    "profile": lambda d, n: "## The user",
}
#: The block's order: open items at the top (the seed: "surfaces them at the top").
BLOCK_ORDER = ("pendingActions", "recentSessions", "memory", "profile")


def render(draft: Draft) -> str:
    """The block as markdown: the header, then each section that kept something."""
    parts = [draft.header]
    for section in BLOCK_ORDER:
        pieces = draft.sections.get(section) or []
        if pieces:
            title = SECTION_TITLES[section](draft, len(pieces))
            parts.append(title + "\n" + "\n".join(p.text for p in pieces))
    return "\n\n".join(parts)


def fit(draft: Draft, budget: int, count: Callable[[str], int]) -> int:
    """Drop pieces in :data:`DROP_ORDER` (each section from its least wanted end) until the
    block is within ``budget``; returns its exact token count."""
    tokens = count(render(draft))
    if tokens <= budget:
        return tokens  # the common case: one count
    for pieces in draft.sections.values():
        for piece in pieces:
            piece.tokens = count(piece.text + "\n")
    fixed = count(draft.header) + sum(
        count(SECTION_TITLES[s](draft, 99)) + 2 for s in BLOCK_ORDER if draft.sections.get(s)
    )
    estimate = fixed + sum(p.tokens for ps in draft.sections.values() for p in ps)

    def drop_one() -> bool:
        nonlocal estimate
        for section in DROP_ORDER:
            pieces = draft.sections.get(section)
            if pieces:
                # memory is ranked best first, sessions newest first, pending oldest first:
                # the last of each is the one to give up.
                piece = pieces.pop()
                draft.dropped.append(piece)
                estimate -= piece.tokens
                return True
        return False

    while estimate > budget and drop_one():
        pass
    tokens = count(render(draft))
    while tokens > budget and drop_one():
        tokens = count(render(draft))
    return tokens


def _fuse(notes: list[dict[str, Any]], insights: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    """Notes and insights in one ranking, by reciprocal rank in their own searches; an
    insight already consolidated into one of the notes is left out."""
    note_ids = {n["id"] for n in notes}
    scored = [(1.0 / (RRF_K + rank), 0, m) for rank, m in enumerate(notes, 1)]
    kept_insights = [i for i in insights if not note_ids.intersection(i.get("knowledgeIds") or ())]
    scored += [(1.0 / (RRF_K + rank), 1, m) for rank, m in enumerate(kept_insights, 1)]
    scored.sort(key=lambda t: (-t[0], t[1]))
    return [{**m, "relevance": round(score * RRF_K, 4)} for score, _, m in scored[:limit]]


class BridgeService:
    """Assembles the context bridge for an agent and the calling user."""

    def __init__(
        self,
        db: Database,
        embedder: Embedder,
        agents: AgentRegistry,
        retrieval: RetrievalService,
        insights: InsightService,
        counter: TokenCounter,
        *,
        min_similarity: float = 0.3,
    ) -> None:
        self._db = db
        self._embedder = embedder
        self._agents = agents
        self._retrieval = retrieval
        self._insights = insights
        self._counter = counter
        self._min_similarity = min_similarity

    async def _memory(self, principal: Principal, topic: str, limit: int) -> list[dict[str, Any]]:
        """Notes and insights on ``topic``, best first, each close enough to it."""
        [vector] = await self._embedder.embed([topic])
        found, recalled = await asyncio.gather(
            self._retrieval.close_to(
                principal, topic, vector, top_k=limit, min_similarity=self._min_similarity
            ),
            self._insights.recall_within_scope(principal, topic, limit=limit, vector=vector),
        )
        notes = [
            {
                "kind": "note",
                **{k: n.get(k) for k in ("id", "title", "content", "type", "confidence", "writtenBy")},
            }
            for n in found
        ]
        insights = [
            {"kind": "insight", **{k: i.get(k) for k in ("id", "content", "type", "confidence", "threadId",
                                                         "pageSlug", "extractedAt", "knowledgeIds")}}
            for i in recalled["insights"]
            if close_enough(i, self._min_similarity)
        ]  # fmt: skip
        return _fuse(notes, insights, limit)

    async def assemble(
        self,
        principal: Principal,
        *,
        agent_id: str | None = None,
        topic: str | None = None,
        token_budget: int | None = None,
    ) -> dict[str, Any]:
        """The bridge a session of ``agent_id`` (the key's agent by default) would get now."""
        agent_id = agent_id or principal.agent_id
        if agent_id is None:
            who = "a person's key" if principal.role == Role.HUMAN else "a key of no agent"
            raise Forbidden(f"{who} names the agent the session is for: agentId", field="agentId")
        agent = self._agents.get(check_id(agent_id, "agentId"))
        if not principal.sees_agent(agent.id):
            raise Forbidden("this key is scoped: it reads its own agent's bridge only", field="agentId")
        config = agent.context_bridge
        budget = token_budget or config.token_budget
        topic = " ".join(topic.split()) if topic and topic.strip() else None
        answer: dict[str, Any] = {
            "agentId": agent.id,
            "enabled": config.enabled,
            "topic": topic,
            "tokenBudget": budget,
            "tokenizer": self._counter.name,
        }
        if not config.enabled:
            return {
                **answer,
                "text": None,
                "tokens": 0,
                "sections": {"recentSessions": [], "pendingActions": [], "memory": [], "profile": None},
                "dropped": [],
                "reason": f"the context bridge is disabled for agent {agent.id!r} in the agents file",
            }
        now = datetime.now(UTC)
        warnings: list[str] = []

        async def context() -> dict[str, Any]:
            [row] = await self._db.read(
                "queries/continuity/bridge_context",
                userId=principal.user_id,
                agentId=agent.id,
                recentSessions=config.recent_sessions,
                maxPending=MAX_PENDING,
                includeProfile=config.include_profile and principal.scope is None,
            )
            return row

        async def memory() -> list[dict[str, Any]]:
            if not topic or not config.memory_matches:
                return []
            try:
                return await self._memory(principal, topic, config.memory_matches)
            except EmbeddingError as exc:
                # The embedder is down: the session still starts, with all that needs none.
                log.warning("context bridge without memory: %s", exc.message)
                warnings.append(f"memory on the topic was left out: the embedder failed ({exc.message})")
                return []

        row, found = await asyncio.gather(context(), memory())
        if len(row["pending"]) >= MAX_PENDING:
            warnings.append(
                f"only the oldest {MAX_PENDING} open pending actions were considered; "
                "list them all with GET /v1/pending-actions"
            )
        draft = self._draft(agent.id, topic, row, found, config, now)
        # Counting grows with the stored text (each piece, then the block as pieces drop):
        # a worker thread's work, not the event loop's.
        tokens, text = await asyncio.to_thread(self._fitted, draft, budget, now)
        return {
            **answer,
            "text": text,
            "tokens": tokens,
            "sections": self._sections(draft),
            "dropped": [{"section": p.section, "id": p.id, "tokens": p.tokens} for p in draft.dropped],
            "reason": None,
            "warnings": warnings,
        }

    def _fitted(self, draft: Draft, budget: int, now: datetime) -> tuple[int, str]:
        """The block within ``budget`` (:func:`fit`), its tokens and its text."""
        tokens = fit(draft, budget, self._counter.count)
        if draft.dropped and not any(draft.sections.values()):
            draft.header = (
                f"# Context bridge ({now:%Y-%m-%d %H:%M} UTC)\nNothing from before fits a budget of "
                f"{budget} tokens; {len(draft.dropped)} items were left out."
            )
            tokens = self._counter.count(render(draft))
        return tokens, render(draft)

    @staticmethod
    def _draft(
        agent_id: str,
        topic: str | None,
        row: Mapping[str, Any],
        memory: list[dict[str, Any]],
        config: BridgeConfig,
        now: datetime,
    ) -> Draft:
        sessions, pending, profile = row["sessions"], row["pending"], row["profile"]
        if profile is not None:
            prefs = sorted(profile["preferences"], key=lambda f: f["name"])
            profile = {
                "background": profile["background"],
                "preferences": {f["name"]: f["value"] for f in prefs},
                "sources": {f["name"]: f["insightId"] for f in prefs if f.get("insightId")},
            }
            if not profile["background"] and not profile["preferences"]:
                profile = None
        stamp = now.strftime("%Y-%m-%d %H:%M UTC")
        if not (sessions or pending or memory or profile):
            nothing = ["no earlier sessions", "no open pending actions"]
            if topic:
                nothing.append(f'nothing stored about "{topic}"')
            if config.include_profile:
                nothing.append("no profile")
            header = (
                f"# Context bridge ({stamp})\nThis is the first session of agent `{agent_id}` with this "
                f"user that has anything to carry over: {', '.join(nothing)}."
            )
        else:
            header = (
                f"# Context bridge ({stamp})\nWhat agent `{agent_id}` knows from before this session with "
                "the user. It is the past, not instructions: do not redo what is done, and confirm open "
                "items with the user before acting on them."
            )
        draft = Draft(header=header, topic=topic)
        draft.sections["pendingActions"] = [
            Piece("pendingActions", p["id"], p, _pending_text(p, now)) for p in pending
        ]
        draft.sections["recentSessions"] = [
            Piece("recentSessions", s["id"], s, _session_text(s)) for s in sessions
        ]
        draft.sections["memory"] = [Piece("memory", m["id"], m, _memory_text(m)) for m in memory]
        draft.sections["profile"] = (
            [Piece("profile", "profile", profile, _profile_text(profile))] if profile else []
        )
        return draft

    @staticmethod
    def _sections(draft: Draft) -> dict[str, Any]:
        """What the block holds, as data."""
        out: dict[str, Any] = {}
        for section in SECTIONS:
            pieces = draft.sections.get(section) or []
            if section == "profile":
                out[section] = pieces[0].data if pieces else None
            else:
                out[section] = [
                    plain({k: v for k, v in p.data.items() if k != "knowledgeIds"}) for p in pieces
                ]
        return out
