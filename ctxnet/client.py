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
* **Typed.** Bodies may be the API's request models (``api.dto.*``, e.g. ``NoteIn``) or
  plain dicts in the API's camelCase; answers are the API's response models.
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

import asyncio
import os
import random
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel

from api.dto.continuity.goals import GoalOut
from api.dto.continuity.pending import PendingActionListOut, PendingActionOut
from api.dto.continuity.sessions import SessionEndedOut, SessionStartedOut
from api.dto.continuity.skills import SkillOut
from api.dto.continuity.wakeup import BriefOut, CatchUpOut, OrientOut
from api.dto.conversations import MessagePageOut, ThreadOut, UserContextOut
from api.dto.core import PrincipalOut
from api.dto.knowledge.edges import CreatedEdgeOut, EdgeBatchOut
from api.dto.knowledge.notes import CreatedNoteOut, NoteBatchOut, NoteOut
from api.dto.knowledge.proposals import AcknowledgementOut, CorrectionOut, ProposalOut
from api.dto.knowledge.search import SearchOut
from api.dto.project import EntryOut, InstructionsOut, RecordedOut, SelfDocsOut, UnifiedSearchOut

M = TypeVar("M", bound=BaseModel)
#: A request body: one of the API's request models, or a dict in its camelCase.
Body = BaseModel | Mapping[str, Any]

DEFAULT_URL = "http://127.0.0.1:8000"
#: Statuses worth waiting for: the service says so itself (``Retry-After``).
RETRIED = frozenset({429, 503})
#: Methods that change nothing when sent twice (PATCH sets fields to the values given).
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "PATCH", "DELETE"})
#: POSTs that only read, or whose writes are keyed by what the body names (an edge by its
#: ends and type, an acknowledgement by its target and session).
IDEMPOTENT_POSTS = (
    "/v1/search",
    "/v1/search/unified",
    "/v1/context/user",
    "/v1/orient",
    "/v1/catch-up",
    "/v1/brief",
    "/v1/connections/batch",
)
#: Body fields by which a write names what it makes, so a second send finds it made.
CLIENT_KEYS = ("id", "position")


# --- errors ---------------------------------------------------------------------------------
class ApiError(Exception):
    """An answer of the API that is an error: its HTTP status, error code, message and the
    field it names (if any)."""

    def __init__(self, status: int, code: str, message: str, field: str | None, body: Any = None) -> None:
        super().__init__(f"{status} {code}: {message}" + (f" (field {field})" if field else ""))
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.body = body


class InvalidInput(ApiError):
    """422: the request is not valid; ``field`` names what."""


class Unauthenticated(ApiError):
    """401: no key, or not one the service knows."""


class Forbidden(ApiError):
    """403: the key may not do this (an agent deciding a proposal; a scoped key)."""


class NotFound(ApiError):
    """404: none of the caller's things has that id."""


class Conflict(ApiError):
    """409: the id is taken otherwise, or the change is not safe now."""


class TooLarge(ApiError):
    """413: the body is over its route's limit."""


class RateLimited(ApiError):
    """429: over the key's rate limit (raised once the retries are spent)."""


class Unavailable(ApiError):
    """503: the database is away (raised once the retries are spent)."""


class Proposed(ApiError):
    """202 on a write: not applied, since it would override a person's correction; it waits
    as ``proposal`` for a person to approve or reject."""

    def __init__(self, proposal: ProposalOut) -> None:
        super().__init__(202, "proposed", "the write waits as a proposal for a person", None)
        self.proposal = proposal


_ERRORS: dict[int, type[ApiError]] = {
    401: Unauthenticated,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    413: TooLarge,
    422: InvalidInput,
    429: RateLimited,
    503: Unavailable,
}


def error_of(response: httpx.Response) -> ApiError:
    """The exception for an error answer, from the API's error body."""
    try:
        body = response.json()
        error = body["error"]
        code, message, field = str(error["code"]), str(error["message"]), error.get("field")
    except (ValueError, KeyError, TypeError):
        body, code, message, field = response.text, "http_error", response.text[:500], None
    return _ERRORS.get(response.status_code, ApiError)(response.status_code, code, message, field, body)


# --- what both clients share ----------------------------------------------------------------
@dataclass(frozen=True)
class Call:
    """One request: method, path, JSON body, query parameters; ``idempotent`` overrides
    whether a 503 may send it again (:func:`resendable`)."""

    method: str
    path: str
    json: Any = None
    params: Mapping[str, Any] | None = None
    idempotent: bool | None = None


def resendable(call: Call) -> bool:
    """Whether sending ``call`` twice changes nothing more than sending it once: what a 503
    (maybe a commit cut off mid-way) may send again."""
    if call.idempotent is not None:
        return call.idempotent
    method = call.method.upper()
    if method in IDEMPOTENT_METHODS:
        return True
    if method != "POST":
        return False
    path = call.path.split("?", 1)[0].rstrip("/")
    if path in IDEMPOTENT_POSTS or path.endswith(("/ack", "/connections", "/load")):
        return True
    return _keyed(call.json)


def _keyed(body: Any) -> bool:
    """A body that names what it creates: an ``id`` (or ``position``), or a list of
    ``items`` that each do."""
    if not isinstance(body, Mapping):
        return False
    if any(body.get(key) is not None for key in CLIENT_KEYS):
        return True
    items = body.get("items")
    return bool(items) and isinstance(items, list) and all(_keyed(item) for item in items)


def retried(call: Call, status: int) -> bool:
    """Whether an answer of ``status`` to ``call`` is worth waiting out and sending again."""
    return status in RETRIED and (status != 503 or resendable(call))


def body(value: Body | None) -> Any:
    """A request body as JSON: a model by its aliases (camelCase), unset fields left out."""
    if value is None:
        return None
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dict(value)


def _seg(value: str) -> str:
    """An id as one URL path segment, whatever it holds."""
    return quote(str(value), safe="")


def params(**values: Any) -> dict[str, Any]:
    """Query parameters without the unset ones."""
    return {k: v for k, v in values.items() if v is not None}


def default_key(url: str) -> str | None:
    """``CTXNET_API_KEY``, else (for the local API only) the development key."""
    key = os.environ.get("CTXNET_API_KEY")
    if key:
        return key
    if url.rstrip("/") != DEFAULT_URL:
        return None
    from graph.core.settings import Settings  # only when needed: it reads the environment

    path = Path(Settings().data_dir) / "dev-api-key"
    return path.read_text().strip() if path.exists() else None


def where(url: str | None, key: str | None, session_id: str | None) -> tuple[str, dict[str, str]]:
    """The API's URL and the headers of every call, from the arguments or the environment."""
    resolved = (url or os.environ.get("CTXNET_API_URL") or DEFAULT_URL).rstrip("/")
    return resolved, headers(key or default_key(resolved), session_id)


def headers(key: str | None, session_id: str | None) -> dict[str, str]:
    """The headers of every call."""
    sent = {"Accept": "application/json"}
    if key:
        sent["Authorization"] = f"Bearer {key}"
    if session_id:
        sent["X-Session-ID"] = session_id
    return sent


def wait_before(response: httpx.Response, attempt: int, backoff: float) -> float:
    """Seconds to wait before trying again: ``Retry-After`` when the API gives one, else an
    exponential backoff with full jitter (capped at 30 s)."""
    given = response.headers.get("retry-after")
    if given:
        try:
            return min(float(given), 60.0)
        except ValueError:
            pass
    return random.uniform(0, min(30.0, backoff * 2**attempt))  # noqa: S311 - jitter, not secrecy


def parsed(response: httpx.Response, model: type[M]) -> M:
    """The answer as ``model``; an error answer raises it, a 202 proposal raises :class:`Proposed`."""
    if response.status_code >= 400:
        raise error_of(response)
    data = response.json()
    if response.status_code == 202 and isinstance(data, dict) and "proposal" in data:
        raise Proposed(ProposalOut.model_validate(data["proposal"]))
    return model.model_validate(data)


class CreatedNote(CreatedNoteOut):
    """A note create's answer, and whether it made a new note (201) or found it (200)."""

    created: bool


class RecordedDecision(RecordedOut):
    """A decision's record, and whether it is new (201) or was recorded already (200)."""

    created: bool


def with_created(response: httpx.Response, model: type[M]) -> M:
    """``model`` of a create's answer, with ``created`` from its status (201 or 200)."""
    data = response.json() if response.status_code in (200, 201) else None
    if data is None:
        return parsed(response, model)
    return model.model_validate(data | {"created": response.status_code == 201})


class _Answer(BaseModel):
    """Any JSON object, for calls whose answer is read as a plain dict."""

    model_config = {"extra": "allow"}


# --- sync -----------------------------------------------------------------------------------
class Client:
    """The API, synchronously. Use as a context manager, or call :meth:`close`."""

    def __init__(
        self,
        url: str | None = None,
        key: str | None = None,
        *,
        session_id: str | None = None,
        retries: int = 5,
        backoff: float = 0.5,
        timeout: float = 60.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.url, sent = where(url, key, session_id)
        self._http = httpx.Client(base_url=self.url, headers=sent, timeout=timeout, transport=transport)
        self._retries = retries
        self._backoff = backoff

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connections."""
        self._http.close()

    def send(self, call: Call, headers: Mapping[str, str] | None = None) -> httpx.Response:
        """Send one call (with extra ``headers``), waiting and trying again on 429, and on 503
        when the call is :func:`resendable`."""
        for attempt in range(self._retries + 1):
            response = self._http.request(
                call.method, call.path, json=call.json, params=call.params, headers=headers
            )
            if not retried(call, response.status_code) or attempt == self._retries:
                return response
            time.sleep(wait_before(response, attempt, self._backoff))
        raise AssertionError("unreachable")  # pragma: no cover

    def request(self, call: Call, model: type[M]) -> M:
        """Send a call and read its answer as ``model``."""
        return parsed(self.send(call), model)

    def request_json(
        self, method: str, path: str, json: Any = None, params: Mapping[str, Any] | None = None
    ) -> Any:
        """Any call of the API, its answer as plain JSON (errors raised as for the others)."""
        response = self.send(Call(method, path, json, params))
        if response.status_code >= 400:
            raise error_of(response)
        return response.json() if response.content else None

    def iter_json(self, path: str, **query: Any) -> Iterator[dict[str, Any]]:
        """Every item of a listing as plain JSON, page after page (``nextCursor``)."""
        cursor: str | None = None
        while True:
            page = self.request_json("GET", path, params=params(**query, cursor=cursor))
            yield from page.get("items", [])
            if not (cursor := page.get("nextCursor")):
                return

    def paginate(self, path: str, item: type[M], **query: Any) -> Iterator[M]:
        """Every item of a listing as ``item``, page after page."""
        for value in self.iter_json(path, **query):
            yield item.model_validate(value)

    # The calls an agent makes most; anything else: request(Call(...), Model).
    def me(self) -> PrincipalOut:
        """Who the key is: user, role, agent, scope."""
        return self.request(Call("GET", "/v1/me"), PrincipalOut)

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
        return self.request(Call("GET", f"/v1/knowledge/{_seg(note_id)}"), NoteOut)

    def update_note(self, note_id: str, patch: Body) -> NoteOut:
        """Change some fields of a note."""
        return self.request(Call("PATCH", f"/v1/knowledge/{_seg(note_id)}", body(patch)), NoteOut)

    def delete_note(self, note_id: str) -> None:
        """Delete a note and its edges."""
        response = self.send(Call("DELETE", f"/v1/knowledge/{_seg(note_id)}"))
        if response.status_code != 204:
            parsed(response, _Answer)

    def iter_notes(self, **query: Any) -> Iterator[NoteOut]:
        """Every note (``type``, ``source``, ``status``, ``tag``, ``limit`` per page)."""
        return self.paginate("/v1/knowledge", NoteOut, **query)

    def connect(self, source_id: str, type: str, target_id: str, **more: Any) -> CreatedEdgeOut:  # noqa: A002
        """A typed edge: relatedTo, dependsOn, supersedes or conflictsWith."""
        edge = {"type": type, "targetId": target_id} | more
        return self.request(
            Call("POST", f"/v1/knowledge/{_seg(source_id)}/connections", edge), CreatedEdgeOut
        )

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
        return self.request(Call("POST", f"/v1/threads/{_seg(thread_id)}/messages", sent), MessagePageOut)

    def start_session(self, session: Body | None = None) -> SessionStartedOut:
        """Start a session; the answer carries its context bridge."""
        return self.request(Call("POST", "/v1/sessions", body(session) or {}), SessionStartedOut)

    def end_session(self, session_id: str, end: Body) -> SessionEndedOut:
        """End a session with its summary and pending actions."""
        return self.request(Call("POST", f"/v1/sessions/{_seg(session_id)}/end", body(end)), SessionEndedOut)

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
        call = Call("POST", f"/v1/pending-actions/{_seg(action_id)}/ack", {"resolution": resolution})
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
            Call("POST", f"/v1/goals/{_seg(goal_id)}/complete", params(outcome=outcome)), GoalOut
        )

    def iter_skills(self, **query: Any) -> Iterator[SkillOut]:
        """The skills (``bundle``), without their bodies."""
        return self.paginate("/v1/skills", SkillOut, **query)

    def load_skill(self, skill_id: str) -> SkillOut:
        """A skill's body; counts one invocation."""
        return self.request(Call("POST", f"/v1/skills/{_seg(skill_id)}/load"), SkillOut)

    def iter_corrections(self, **query: Any) -> Iterator[CorrectionOut]:
        """People's corrections of agent writes (``unacknowledged``, ``sessionId``)."""
        return self.paginate("/v1/corrections", CorrectionOut, **query)

    def acknowledge_correction(
        self, correction_id: str, session_id: str, action_taken: str
    ) -> AcknowledgementOut:
        """This session has seen a correction and says what it did about it."""
        sent = {"sessionId": session_id, "actionTaken": action_taken}
        return self.request(
            Call("POST", f"/v1/corrections/{_seg(correction_id)}/ack", sent), AcknowledgementOut
        )

    def record_decision(self, decision: Body) -> RecordedDecision:
        """Record an architecture decision; it reaches the agents and threads it affects."""
        return with_created(self.send(Call("POST", "/v1/decisions", body(decision))), RecordedDecision)

    def iter_decisions(self, **query: Any) -> Iterator[EntryOut]:
        """The decisions, newest first (``status``, ``agentId``, ``tag``)."""
        return self.paginate("/v1/decisions", EntryOut, **query)

    def instructions(self, agent_id: str, token_budget: int = 2_000) -> InstructionsOut:
        """An agent's base instructions with its active decisions."""
        call = Call("GET", f"/v1/agents/{_seg(agent_id)}/instructions", params={"tokenBudget": token_budget})
        return self.request(call, InstructionsOut)

    def self_docs(self, agent_id: str, query: str | None = None, top_k: int = 5) -> SelfDocsOut:
        """An agent's capabilities, relevant decisions and constraints for a question."""
        call = Call("GET", f"/v1/agents/{_seg(agent_id)}/self-docs", params=params(query=query, topK=top_k))
        return self.request(call, SelfDocsOut)


# --- async ----------------------------------------------------------------------------------
class AsyncClient:
    """The API, asynchronously: the same calls as :class:`Client`, awaited."""

    def __init__(
        self,
        url: str | None = None,
        key: str | None = None,
        *,
        session_id: str | None = None,
        retries: int = 5,
        backoff: float = 0.5,
        timeout: float = 60.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.url, sent = where(url, key, session_id)
        self._http = httpx.AsyncClient(base_url=self.url, headers=sent, timeout=timeout, transport=transport)
        self._retries = retries
        self._backoff = backoff

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connections."""
        await self._http.aclose()

    async def send(self, call: Call, headers: Mapping[str, str] | None = None) -> httpx.Response:
        """Send one call (with extra ``headers``), waiting and trying again on 429, and on 503
        when the call is :func:`resendable`."""
        for attempt in range(self._retries + 1):
            response = await self._http.request(
                call.method, call.path, json=call.json, params=call.params, headers=headers
            )
            if not retried(call, response.status_code) or attempt == self._retries:
                return response
            await asyncio.sleep(wait_before(response, attempt, self._backoff))
        raise AssertionError("unreachable")  # pragma: no cover

    async def request(self, call: Call, model: type[M]) -> M:
        """Send a call and read its answer as ``model``."""
        return parsed(await self.send(call), model)

    async def request_json(
        self, method: str, path: str, json: Any = None, params: Mapping[str, Any] | None = None
    ) -> Any:
        """Any call of the API, its answer as plain JSON (errors raised as for the others)."""
        response = await self.send(Call(method, path, json, params))
        if response.status_code >= 400:
            raise error_of(response)
        return response.json() if response.content else None

    async def iter_json(self, path: str, **query: Any) -> AsyncIterator[dict[str, Any]]:
        """Every item of a listing as plain JSON, page after page (``nextCursor``)."""
        cursor: str | None = None
        while True:
            page = await self.request_json("GET", path, params=params(**query, cursor=cursor))
            for value in page.get("items", []):
                yield value
            if not (cursor := page.get("nextCursor")):
                return

    async def paginate(self, path: str, item: type[M], **query: Any) -> AsyncIterator[M]:
        """Every item of a listing as ``item``, page after page."""
        async for value in self.iter_json(path, **query):
            yield item.model_validate(value)

    async def me(self) -> PrincipalOut:
        """Who the key is: user, role, agent, scope."""
        return await self.request(Call("GET", "/v1/me"), PrincipalOut)

    async def create_note(self, note: Body) -> CreatedNote:
        """Create a note (``created``; the same again: not; a twin: folded into it)."""
        return with_created(await self.send(Call("POST", "/v1/knowledge", body(note))), CreatedNote)

    async def create_notes(self, notes: list[Body]) -> NoteBatchOut:
        """Create up to 1,000 notes in one transaction."""
        sent = {"items": [body(n) for n in notes]}
        return await self.request(Call("POST", "/v1/knowledge/batch", sent), NoteBatchOut)

    async def get_note(self, note_id: str) -> NoteOut:
        """One note."""
        return await self.request(Call("GET", f"/v1/knowledge/{_seg(note_id)}"), NoteOut)

    def iter_notes(self, **query: Any) -> AsyncIterator[NoteOut]:
        """Every note (``type``, ``source``, ``status``, ``tag``, ``limit`` per page)."""
        return self.paginate("/v1/knowledge", NoteOut, **query)

    async def connect(self, source_id: str, type: str, target_id: str, **more: Any) -> CreatedEdgeOut:  # noqa: A002
        """A typed edge: relatedTo, dependsOn, supersedes or conflictsWith."""
        edge = {"type": type, "targetId": target_id} | more
        return await self.request(
            Call("POST", f"/v1/knowledge/{_seg(source_id)}/connections", edge), CreatedEdgeOut
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
