"""Saved sessions: the wiki page an agent writes at the end of its work.

Saving a session writes its concept page: a summary, the decisions made, what was
learned, the questions left open, and three to five typed insights (``preference``,
``fact``, ``decision``, ``question``). The insights are stored as :class:`Insight` nodes
with their provenance (``(:Insight)-[:EXTRACTED_FROM]->(:WikiPage)<-[:SAVED_AS]-(:Session)``),
embedded, so insight recall, the context bridge and brief_me find them like extracted ones.

A session has one page, found by the session's id (never by its slug). The slug is
stable and readable: made from the session's start date, its topic (or the first summary's
words) and a hash of its id at the first save, and kept by every later save; a slug
another session's page already holds is never reused (a longer hash is taken). The same
save again changes nothing; another save rewrites the page (``savedCount`` + 1). The
agent's newest saved page is its next catch_up cutoff (tier ``session_record``).
Each save is journaled as ``wiki.save`` on the page.

A key with an entity scope saves its own agent's sessions, but a page's insights are the
user's conversation memory, which no scope holds: its save may not carry any
(:class:`Forbidden` on ``insights``) and leaves the page's insights as they are.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ctxnet.wire.continuity.wiki import MAX_INSIGHTS, MAX_ITEMS, MIN_INSIGHTS
from graph.conversations.models import InsightType
from graph.core import journal
from graph.core.db import Database, Row
from graph.core.embeddings import Embedder
from graph.core.errors import Conflict, Forbidden, InvalidInput, NotFound
from graph.core.gate import Gated, WriteGate
from graph.core.principals import Principal
from graph.core.states import state_json
from graph.core.tenancy import tenant_key
from graph.core.values import check_id, decode_cursor, encode_cursor, plain

_SLUG_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class SavedInsight:
    """One typed insight of a saved session."""

    type: str
    content: str
    confidence: float = 0.9


@dataclass(frozen=True)
class SessionSave:
    """What a session's page says."""

    summary: str
    decisions: Sequence[str] = ()
    learnings: Sequence[str] = ()
    open_questions: Sequence[str] = ()
    insights: Sequence[SavedInsight] = ()
    #: Filled from the other fields: the save as given, to recognise a repeat.
    fingerprint: str = field(init=False, default="")

    def given(self) -> dict[str, Any]:
        """The save by its API names (journaled, and fingerprinted)."""
        return {
            "summary": self.summary,
            "decisions": list(self.decisions),
            "learnings": list(self.learnings),
            "openQuestions": list(self.open_questions),
            "insights": [
                {"type": i.type, "content": i.content, "confidence": i.confidence} for i in self.insights
            ],
        }

    def __post_init__(self) -> None:
        # the request's text as written (JSON without escapes): a forget's query finds it
        object.__setattr__(self, "fingerprint", state_json(self.given()))

    def checked(self) -> SessionSave:
        """This save, or :class:`InvalidInput` naming the field that is wrong. An insight
        listed twice (the same type and content, spaces aside) is folded into its first
        listing, as saving it again in a later save keeps it."""
        if not self.summary.strip():
            raise InvalidInput("summary must not be empty", field="summary")
        for name, items in (("decisions", self.decisions), ("learnings", self.learnings),
                            ("openQuestions", self.open_questions)):  # fmt: skip
            if len(items) > MAX_ITEMS:
                raise InvalidInput(f"at most {MAX_ITEMS} {name}", field=name)
            for i, item in enumerate(items):
                if not item.strip():
                    raise InvalidInput("must not be empty", field=f"{name}.{i}")
        if self.insights and not MIN_INSIGHTS <= len(self.insights) <= MAX_INSIGHTS:
            raise InvalidInput(
                f"a saved session carries {MIN_INSIGHTS} to {MAX_INSIGHTS} insights, or none "
                f"(got {len(self.insights)})",
                field="insights",
            )
        seen: dict[tuple[str, str], SavedInsight] = {}
        for i, insight in enumerate(self.insights):
            if insight.type not in {t.value for t in InsightType}:
                raise InvalidInput(
                    f"type must be one of {', '.join(t.value for t in InsightType)}",
                    field=f"insights.{i}.type",
                )
            if not insight.content.strip():
                raise InvalidInput("must not be empty", field=f"insights.{i}.content")
            seen.setdefault((insight.type, " ".join(insight.content.split())), insight)
        if len(seen) < len(self.insights):
            return replace(self, insights=tuple(seen.values()))
        return self


def slug_candidates(session: dict[str, Any], summary: str) -> list[str]:
    """The slugs a session's page may take, the most readable first:
    ``session-<start date>-<up to six words of the topic or summary>-<6 hex of the id's
    sha256>``, then with 16 hex, then ``session-<start date>-<all 64 hex>`` (unique as the
    id is). The first no other session's page holds is the page's."""
    started = session["startedAt"][:10]  # an ISO-8601 time: its day
    words = _SLUG_WORD.findall((session.get("topic") or summary).lower())[:6] or ["session"]
    digest = hashlib.sha256(session["id"].encode()).hexdigest()
    readable = f"session-{started}-{'-'.join(words)[:60].rstrip('-')}"
    return [f"{readable}-{digest[:6]}", f"{readable}-{digest[:16]}", f"session-{started}-{digest}"]


async def _free_slug(gated: Gated, candidates: list[str]) -> str:
    """The first of ``candidates`` no page of the user holds (under the gate: no race)."""
    rows = await gated.run(
        "queries/continuity/wiki_pages", slugs=candidates, agentId=None, sessionId=None,
        afterTime=None, afterSlug=None, limit=len(candidates),
    )  # fmt: skip
    taken = {r["page"]["slug"] for r in rows}
    free = [slug for slug in candidates if slug not in taken]
    if not free:
        raise Conflict("every slug this session's page could take is held by another page", field="id")
    return free[0]


def _title(session: dict[str, Any], summary: str) -> str:
    text = " ".join((session.get("topic") or summary).split())
    return text if len(text) <= 100 else text[:99].rstrip() + "…"


def page_view(row: Row) -> dict[str, Any]:
    """A page as the API shows it: its fields, its insights in the order saved, and the
    page as markdown (front matter ``session: true``, as a concept page)."""
    page: dict[str, Any] = plain(row)
    page.pop("savedWith", None)
    page["insights"].sort(key=lambda i: i.pop("position", 0) or 0)
    page["markdown"] = render(page)
    return page


def render(page: dict[str, Any]) -> str:
    """The page as markdown with YAML front matter."""
    front = [
        "---",
        "type: concept",
        "session: true",
        f"slug: {page['slug']}",
        f"sessionId: {page['sessionId']}",
        f"agentId: {page.get('agentId') or ''}",
        f"savedAt: {page['savedAt']}",
        "---",
        f"# {page['title']}",
        "",
        "## Summary",
        page["summary"],
    ]
    for title, key in (
        ("Decisions", "decisions"),
        ("Learnings", "learnings"),
        ("Open questions", "openQuestions"),
    ):
        if page.get(key):
            front += ["", f"## {title}", *[f"- {item}" for item in page[key]]]
    if page["insights"]:
        front += ["", "## Insights", *[f"- [{i['type']}] {i['content']}" for i in page["insights"]]]
    return "\n".join(front) + "\n"


def page_text(page: dict[str, Any]) -> str:
    """What a page is embedded and ranked by: its title, summary, decisions and learnings (as
    cypher/queries/core/reembed_wiki_page_page.cypher also writes it)."""
    return "\n".join([page["title"], page["summary"], *page.get("decisions", ()), *page.get("learnings", ())])


class WikiService:
    """Save the calling user's sessions as pages, and read them."""

    def __init__(self, db: Database, embedder: Embedder) -> None:
        self._db = db
        self._embedder = embedder
        self._gate = WriteGate(db)

    async def save(
        self, principal: Principal, session_id: str, save: SessionSave
    ) -> tuple[dict[str, Any], str]:
        """Save a session as its page; ``(page, outcome)``, outcome ``created``, ``updated``
        (an earlier save rewritten) or ``unchanged`` (the same save again)."""
        session_id = check_id(session_id)
        save = save.checked()
        if principal.scope is not None and save.insights:
            raise Forbidden(
                "this key is scoped: a page's insights are the user's conversation memory, outside any "
                "scope; save the page without insights, or with an unscoped key",
                field="insights",
            )
        found = await self._session(principal, session_id)
        summary = save.summary.strip()
        title = _title(found, summary)
        insights = [
            {
                "type": i.type,
                "content": " ".join(i.content.split()),
                "confidence": i.confidence,
                "position": n,
            }
            for n, i in enumerate(save.insights)
        ]
        draft: dict[str, Any] = {"title": title, "summary": summary, "decisions": list(save.decisions),
                                 "learnings": list(save.learnings)}  # fmt: skip
        texts = [page_text(draft), *[str(i["content"]) for i in insights]]
        vectors = await self._embedder.embed(texts)

        async def work(gated: Gated) -> tuple[dict[str, Any], str]:
            existing = await gated.run(
                "queries/continuity/wiki_pages", slugs=None, agentId=None, sessionId=session_id,
                afterTime=None, afterSlug=None, limit=1,
            )  # fmt: skip
            sessions = await gated.run("queries/continuity/sessions_by_ids", ids=[session_id])
            if not sessions or not principal.sees_agent(sessions[0]["session"]["agentId"]):
                raise NotFound(f"no session {session_id!r}", field="id")
            before = existing[0]["page"] if existing else None
            if before is not None and before["sessionId"] != session_id:  # the query's promise
                raise Conflict(f"the page found is not session {session_id!r}'s", field="id")
            if before is not None and before["savedWith"] == save.fingerprint:
                return page_view(before), "unchanged"
            if before is not None:
                slug = before["slug"]
            else:
                slug = await _free_slug(gated, slug_candidates(plain(sessions[0]["session"]), summary))
            rows = [
                {**i, "key": _insight_key(slug, i), "id": uuid.uuid4().hex, "embedding": vector}
                for i, vector in zip(insights, vectors[1:], strict=True)
            ]
            await gated.run(
                "queries/continuity/wiki_save", sessionId=session_id, slug=slug, title=title, summary=summary,
                decisions=list(save.decisions), learnings=list(save.learnings),
                openQuestions=list(save.open_questions), fingerprint=save.fingerprint,
                role=principal.role.value, embedding=vectors[0], embeddingModel=self._embedder.model_id,
                seq=gated.seq, tenantKey=tenant_key(principal.user_id),
                insights=rows, keepInsights=principal.scope is not None,
            )  # fmt: skip
            [row] = await gated.run(
                "queries/continuity/wiki_pages", slugs=[slug], agentId=None, sessionId=None,
                afterTime=None, afterSlug=None, limit=1,
            )  # fmt: skip
            page = page_view(row["page"])
            was = (
                None
                if before is None
                else {k: v for k, v in plain(before).items() if k not in ("savedWith",)}
            )
            await journal.record(
                gated, principal, op="wiki.save", target_type="WikiPage", target_id=slug,
                before=_journaled(was), after={**save.given(), "sessionId": session_id, "title": title},
            )  # fmt: skip
            return page, "created" if before is None else "updated"

        return await self._gate.write(principal.user_id, work)

    async def _session(self, principal: Principal, session_id: str) -> dict[str, Any]:
        rows = await self._db.read(
            "queries/continuity/sessions_by_ids", userId=principal.user_id, ids=[session_id]
        )
        if not rows or not principal.sees_agent(rows[0]["session"]["agentId"]):
            raise NotFound(f"no session {session_id!r}", field="id")
        session: dict[str, Any] = plain(rows[0]["session"])
        return session

    async def get(self, principal: Principal, slug: str) -> dict[str, Any]:
        """One saved page by its slug, or :class:`NotFound`."""
        rows = await self._db.read(
            "queries/continuity/wiki_pages", userId=principal.user_id, slugs=[check_id(slug, "slug")],
            agentId=None, sessionId=None, afterTime=None, afterSlug=None, limit=1,
        )  # fmt: skip
        if not rows or not principal.sees_agent(rows[0]["page"]["agentId"]):
            raise NotFound("no wiki page with this slug", field="slug")
        return page_view(rows[0]["page"])

    async def list_pages(
        self, principal: Principal, *, agent_id: str | None = None, limit: int = 50, cursor: str | None = None
    ) -> tuple[list[dict[str, Any]], str | None]:
        """Saved pages, newest save first (one agent's, if given)."""
        after_time, after_slug = decode_cursor(cursor) if cursor else (None, None)
        rows = await self._db.read(
            "queries/continuity/wiki_pages", userId=principal.user_id, slugs=None,
            agentId=principal.agent_view(check_id(agent_id, "agentId") if agent_id else None), sessionId=None,
            afterTime=after_time, afterSlug=after_slug, limit=limit + 1,
        )  # fmt: skip
        items = [page_view(r["page"]) for r in rows[:limit]]
        if len(rows) <= limit:
            return items, None
        return items, encode_cursor(rows[limit - 1]["position"], rows[limit - 1]["page"]["slug"])


def _insight_key(slug: str, insight: dict[str, Any]) -> str:
    """Saving the same insight again keeps it (and its id): it is keyed by page and text."""
    said = f"{insight['type']}\n{insight['content']}".encode()
    return f"page:{slug}:{hashlib.sha256(said).hexdigest()[:24]}"


def _journaled(page: dict[str, Any] | None) -> dict[str, Any] | None:
    """An earlier page as the journal keeps it: what was said, not when."""
    if page is None:
        return None
    keep = ("summary", "decisions", "learnings", "openQuestions", "title", "sessionId")
    said = {k: page.get(k) for k in keep}
    said["insights"] = [{"type": i["type"], "content": i["content"]} for i in page["insights"]]
    return said
