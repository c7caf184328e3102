"""A Python client of the Context Network API, sync (:class:`Client`) and async
(:class:`AsyncClient`), typed with the API's own models.

::

    from ctxnet.client import Client

    with Client() as cn:                      # CTXNET_API_URL / CTXNET_API_KEY, or the local
        note = cn.create_note({"title": "Billing calls auth", "content": "...", "type": "fact"})
        for hit in cn.search({"query": "who calls auth?"}).hits:
            print(hit.node.title, hit.score)
        for note in cn.iter_notes(type="fact"):   # every page, one after the other
            ...

* **Where and who.** ``url`` defaults to ``CTXNET_API_URL``, else the local API
  (``http://127.0.0.1:8000``); ``key`` to ``CTXNET_API_KEY``, else the development key
  ``ctxnet serve`` keeps in ``.data/dev-api-key``. ``session_id`` is sent as
  ``X-Session-ID`` with every call, so the journal attributes writes to the session.
* **Typed.** Bodies may be the API's request models (``ctxnet.wire.*``, e.g. ``NoteIn``) or
  plain dicts in the API's camelCase; answers are the API's response models. The limits a
  server's settings decide (a note's words, the vector size) are the server's to check: a
  model built here does not check them, and :meth:`Client.limits` says what they are.
* **Light.** It loads the wire contract (``ctxnet.wire``), pydantic and httpx, nothing of the
  server: ``pip install context-network`` is this client.
* **Errors** are exceptions carrying the API's error ``code``, ``message`` and ``field``
  (:class:`ApiError` and a subclass per status, e.g. :class:`NotFound`, :class:`InvalidInput`).
  A write that a person's correction holds back answers 202: :class:`Proposed` carries the
  proposal.
* **Retries** only where waiting helps: 503 (Neo4j away) and 429 (rate limit), honouring
  ``Retry-After``, else backing off exponentially with jitter, at most ``retries`` times.
  A 429 is refused before anything runs, so any call is sent again. A 503 may come from a
  commit cut off mid-way, so only a call that changes nothing when sent twice is sent
  again (:func:`resendable`): reads, ``PUT``, ``PATCH``, ``DELETE``, acknowledgements,
  and writes that carry the ids they create (a note, a batch whose every item has its
  ``id``, tool calls with their ``position``); a ``POST`` whose id the server makes (a
  goal, a session or a note without an id) answers its 503 to the caller, who knows
  whether to look before writing again. Nothing else is retried: a 4xx is the caller's to
  fix, and a write is never sent twice for a timeout.
* **Pages.** ``iter_*`` methods, :meth:`Client.paginate` (typed) and :meth:`Client.iter_json`
  (plain JSON) follow ``nextCursor`` to the end.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

from pydantic import BaseModel

from ctxnet.transport import (
    DEFAULT_URL,
    ApiError,
    AsyncBaseClient,
    BaseClient,
    Body,
    Call,
    Conflict,
    Forbidden,
    InvalidInput,
    NotFound,
    Proposed,
    RateLimited,
    TooLarge,
    Unauthenticated,
    Unavailable,
    body,
    error_of,
    params,
    parsed,
    resendable,
    retried,
    seg,
    wait_before,
    with_created,
)
from ctxnet.wire.continuity.goals import GoalOut
from ctxnet.wire.continuity.pending import PendingActionListOut, PendingActionOut
from ctxnet.wire.continuity.sessions import SessionEndedOut, SessionStartedOut
from ctxnet.wire.continuity.skills import SkillOut
from ctxnet.wire.continuity.wakeup import BriefOut, CatchUpOut, OrientOut
from ctxnet.wire.conversations import MessagePageOut, ThreadOut, UserContextOut
from ctxnet.wire.core import LimitsOut, PrincipalOut
from ctxnet.wire.knowledge.edges import CreatedEdgeOut, EdgeBatchOut
from ctxnet.wire.knowledge.notes import CreatedNoteOut, NoteBatchOut, NoteOut
from ctxnet.wire.knowledge.proposals import AcknowledgementOut, CorrectionOut
from ctxnet.wire.knowledge.search import SearchOut
from ctxnet.wire.project import EntryOut, InstructionsOut, RecordedOut, SelfDocsOut, UnifiedSearchOut

#: What ``from ctxnet.client import ...`` offers: the clients, their answers' extra types,
#: the errors, and the call's mechanics (:mod:`ctxnet.transport`).
__all__ = [
    "DEFAULT_URL",
    "ApiError",
    "AsyncClient",
    "Body",
    "Call",
    "Client",
    "Conflict",
    "CreatedNote",
    "Forbidden",
    "InvalidInput",
    "NotFound",
    "Proposed",
    "RateLimited",
    "RecordedDecision",
    "TooLarge",
    "Unauthenticated",
    "Unavailable",
    "error_of",
    "resendable",
    "retried",
    "wait_before",
]


class CreatedNote(CreatedNoteOut):
    """A note create's answer, and whether it made a new note (201) or found it (200)."""

    created: bool


class RecordedDecision(RecordedOut):
    """A decision's record, and whether it is new (201) or was recorded already (200)."""

    created: bool


class _Answer(BaseModel):
    """Any JSON object, for calls whose answer is read as a plain dict."""

    model_config = {"extra": "allow"}


class Client(BaseClient):
    """The API, synchronously, its calls by name. Use as a context manager, or call :meth:`close`."""

    # The calls an agent makes most; anything else: request(Call(...), Model).
    def me(self) -> PrincipalOut:
        """Who the key is: user, role, agent, scope."""
        return self.request(Call("GET", "/v1/me"), PrincipalOut)

    def limits(self) -> LimitsOut:
        """The limits the server holds requests to (a note's words, the vector size, ...)."""
        return self.request(Call("GET", "/v1/limits"), LimitsOut)

    def create_note(self, note: Body) -> CreatedNote:
        """Create a note (``created``; the same again: not; a twin: folded into it)."""
        return with_created(self.send(Call("POST", "/v1/knowledge", body(note))), CreatedNote)

    def create_notes(self, notes: list[Body]) -> NoteBatchOut:
        """Create up to 1,000 notes in one transaction."""
        return self.request(
            Call("POST", "/v1/knowledge/batch", {"items": [body(n) for n in notes]}), NoteBatchOut
        )

    def get_note(self, note_id: str) -> NoteOut:
        """One note."""
        return self.request(Call("GET", f"/v1/knowledge/{seg(note_id)}"), NoteOut)

    def update_note(self, note_id: str, patch: Body) -> NoteOut:
        """Change some fields of a note."""
        return self.request(Call("PATCH", f"/v1/knowledge/{seg(note_id)}", body(patch)), NoteOut)

    def invalidate_note(self, note_id: str, reason: str, at: str | None = None) -> NoteOut:
        """State that a note stopped being true (now, or ``at``, RFC 3339), and why."""
        sent = {"reason": reason} | ({"at": at} if at else {})
        return self.request(Call("POST", f"/v1/knowledge/{seg(note_id)}/invalidate", sent), NoteOut)

    def delete_note(self, note_id: str) -> None:
        """Delete a note and its edges."""
        response = self.send(Call("DELETE", f"/v1/knowledge/{seg(note_id)}"))
        if response.status_code != 204:
            parsed(response, _Answer)

    def iter_notes(self, **query: Any) -> Iterator[NoteOut]:
        """Every note (``type``, ``source``, ``status``, ``tag``, ``limit`` per page)."""
        return self.paginate("/v1/knowledge", NoteOut, **query)

    def connect(self, source_id: str, type: str, target_id: str, **more: Any) -> CreatedEdgeOut:  # noqa: A002
        """A typed edge: relatedTo, dependsOn, supersedes or conflictsWith."""
        edge = {"type": type, "targetId": target_id} | more
        return self.request(Call("POST", f"/v1/knowledge/{seg(source_id)}/connections", edge), CreatedEdgeOut)

    def connect_many(self, edges: list[Body]) -> EdgeBatchOut:
        """Up to 1,000 edges ``{sourceId, type, targetId, ...}`` in one transaction."""
        return self.request(
            Call("POST", "/v1/connections/batch", {"items": [body(e) for e in edges]}), EdgeBatchOut
        )

    def search(self, query: Body) -> SearchOut:
        """Search the notes (``{query, topK, mode, ...}``), with the notes connected to each hit."""
        return self.request(Call("POST", "/v1/search", body(query)), SearchOut)

    def recall(self, query: str, limit: int = 10) -> UserContextOut:
        """The insights from conversations most relevant to ``query``, and recent topics."""
        return self.request(
            Call("POST", "/v1/context/user", {"query": query, "limit": limit}), UserContextOut
        )

    def unified_search(
        self, query: str, layers: list[str] | None = None, top_k: int = 10
    ) -> UnifiedSearchOut:
        """Knowledge, memory and project docs in one ranking."""
        sent = {"query": query, "topK": top_k} | ({"layers": layers} if layers else {})
        return self.request(Call("POST", "/v1/search/unified", sent), UnifiedSearchOut)

    def create_thread(self, thread: Body) -> ThreadOut:
        """A conversation thread ``{id?, contextType, topic}``."""
        return self.request(Call("POST", "/v1/threads", body(thread)), ThreadOut)

    def append_messages(self, thread_id: str, messages: list[Body]) -> MessagePageOut:
        """Append messages in order (idempotent by message id): the messages as stored."""
        sent = {"messages": [body(m) for m in messages]}
        return self.request(Call("POST", f"/v1/threads/{seg(thread_id)}/messages", sent), MessagePageOut)

    def start_session(self, session: Body | None = None) -> SessionStartedOut:
        """Start a session; the answer carries its context bridge."""
        return self.request(Call("POST", "/v1/sessions", body(session) or {}), SessionStartedOut)

    def end_session(self, session_id: str, end: Body) -> SessionEndedOut:
        """End a session with its summary and pending actions."""
        return self.request(Call("POST", f"/v1/sessions/{seg(session_id)}/end", body(end)), SessionEndedOut)

    def orient(self, goal: str | None = None) -> OrientOut:
        """One call to wake up: status, focus, goals, corrections, skills, next calls."""
        return self.request(Call("POST", "/v1/orient", params(goal=goal)), OrientOut)

    def catch_up(self, request: Body | None = None) -> CatchUpOut:
        """What changed since this agent's last saved session (or ``since``)."""
        return self.request(Call("POST", "/v1/catch-up", body(request) or {}), CatchUpOut)

    def brief(self, task: str, token_budget: int = 2_000) -> BriefOut:
        """Decisions, notes, saved sessions and insights for a task, within a token budget."""
        return self.request(Call("POST", "/v1/brief", {"task": task, "tokenBudget": token_budget}), BriefOut)

    def pending_actions(self, **query: Any) -> PendingActionListOut:
        """Pending actions (``status``, ``agentId``); open ones oldest first."""
        return self.request(Call("GET", "/v1/pending-actions", params=params(**query)), PendingActionListOut)

    def resolve_pending_action(self, action_id: str, resolution: str) -> PendingActionOut:
        """Mark a pending action done."""
        call = Call("POST", f"/v1/pending-actions/{seg(action_id)}/ack", {"resolution": resolution})
        return self.request(call, PendingActionOut)

    def set_goal(self, goal: Body) -> GoalOut:
        """Push a goal ``{id?, title, parentId?}``."""
        return self.request(Call("POST", "/v1/goals", body(goal)), GoalOut)

    def iter_goals(self, **query: Any) -> Iterator[GoalOut]:
        """The goal stack, active first."""
        return self.paginate("/v1/goals", GoalOut, **query)

    def complete_goal(self, goal_id: str, outcome: str | None = None) -> GoalOut:
        """Mark a goal completed."""
        return self.request(
            Call("POST", f"/v1/goals/{seg(goal_id)}/complete", params(outcome=outcome)), GoalOut
        )

    def iter_skills(self, **query: Any) -> Iterator[SkillOut]:
        """The skills (``bundle``), without their bodies."""
        return self.paginate("/v1/skills", SkillOut, **query)

    def load_skill(self, skill_id: str) -> SkillOut:
        """A skill's body; counts one invocation."""
        return self.request(Call("POST", f"/v1/skills/{seg(skill_id)}/load"), SkillOut)

    def iter_corrections(self, **query: Any) -> Iterator[CorrectionOut]:
        """People's corrections of agent writes (``unacknowledged``, ``sessionId``)."""
        return self.paginate("/v1/corrections", CorrectionOut, **query)

    def acknowledge_correction(
        self, correction_id: str, session_id: str, action_taken: str
    ) -> AcknowledgementOut:
        """This session has seen a correction and says what it did about it."""
        sent = {"sessionId": session_id, "actionTaken": action_taken}
        return self.request(
            Call("POST", f"/v1/corrections/{seg(correction_id)}/ack", sent), AcknowledgementOut
        )

    def record_decision(self, decision: Body) -> RecordedDecision:
        """Record an architecture decision; it reaches the agents and threads it affects."""
        return with_created(self.send(Call("POST", "/v1/decisions", body(decision))), RecordedDecision)

    def iter_decisions(self, **query: Any) -> Iterator[EntryOut]:
        """The decisions, newest first (``status``, ``agentId``, ``tag``)."""
        return self.paginate("/v1/decisions", EntryOut, **query)

    def instructions(self, agent_id: str, token_budget: int = 2_000) -> InstructionsOut:
        """An agent's base instructions with its active decisions."""
        call = Call("GET", f"/v1/agents/{seg(agent_id)}/instructions", params={"tokenBudget": token_budget})
        return self.request(call, InstructionsOut)

    def self_docs(self, agent_id: str, query: str | None = None, top_k: int = 5) -> SelfDocsOut:
        """An agent's capabilities, relevant decisions and constraints for a question."""
        call = Call("GET", f"/v1/agents/{seg(agent_id)}/self-docs", params=params(query=query, topK=top_k))
        return self.request(call, SelfDocsOut)


class AsyncClient(AsyncBaseClient):
    """The API, asynchronously: the same calls as :class:`Client`, awaited."""

    async def me(self) -> PrincipalOut:
        """Who the key is: user, role, agent, scope."""
        return await self.request(Call("GET", "/v1/me"), PrincipalOut)

    async def limits(self) -> LimitsOut:
        """The limits the server holds requests to (a note's words, the vector size, ...)."""
        return await self.request(Call("GET", "/v1/limits"), LimitsOut)

    async def create_note(self, note: Body) -> CreatedNote:
        """Create a note (``created``; the same again: not; a twin: folded into it)."""
        return with_created(await self.send(Call("POST", "/v1/knowledge", body(note))), CreatedNote)

    async def create_notes(self, notes: list[Body]) -> NoteBatchOut:
        """Create up to 1,000 notes in one transaction."""
        sent = {"items": [body(n) for n in notes]}
        return await self.request(Call("POST", "/v1/knowledge/batch", sent), NoteBatchOut)

    async def get_note(self, note_id: str) -> NoteOut:
        """One note."""
        return await self.request(Call("GET", f"/v1/knowledge/{seg(note_id)}"), NoteOut)

    async def invalidate_note(self, note_id: str, reason: str, at: str | None = None) -> NoteOut:
        """State that a note stopped being true (now, or ``at``, RFC 3339), and why."""
        sent = {"reason": reason} | ({"at": at} if at else {})
        return await self.request(Call("POST", f"/v1/knowledge/{seg(note_id)}/invalidate", sent), NoteOut)

    def iter_notes(self, **query: Any) -> AsyncIterator[NoteOut]:
        """Every note (``type``, ``source``, ``status``, ``tag``, ``limit`` per page)."""
        return self.paginate("/v1/knowledge", NoteOut, **query)

    async def connect(self, source_id: str, type: str, target_id: str, **more: Any) -> CreatedEdgeOut:  # noqa: A002
        """A typed edge: relatedTo, dependsOn, supersedes or conflictsWith."""
        edge = {"type": type, "targetId": target_id} | more
        return await self.request(
            Call("POST", f"/v1/knowledge/{seg(source_id)}/connections", edge), CreatedEdgeOut
        )

    async def search(self, query: Body) -> SearchOut:
        """Search the notes (``{query, topK, mode, ...}``)."""
        return await self.request(Call("POST", "/v1/search", body(query)), SearchOut)

    async def recall(self, query: str, limit: int = 10) -> UserContextOut:
        """The insights from conversations most relevant to ``query``, and recent topics."""
        sent = {"query": query, "limit": limit}
        return await self.request(Call("POST", "/v1/context/user", sent), UserContextOut)

    async def orient(self, goal: str | None = None) -> OrientOut:
        """One call to wake up."""
        return await self.request(Call("POST", "/v1/orient", params(goal=goal)), OrientOut)

    async def catch_up(self, request: Body | None = None) -> CatchUpOut:
        """What changed since this agent's last saved session (or ``since``)."""
        return await self.request(Call("POST", "/v1/catch-up", body(request) or {}), CatchUpOut)

    async def brief(self, task: str, token_budget: int = 2_000) -> BriefOut:
        """Decisions, notes, saved sessions and insights for a task, within a token budget."""
        sent = {"task": task, "tokenBudget": token_budget}
        return await self.request(Call("POST", "/v1/brief", sent), BriefOut)
