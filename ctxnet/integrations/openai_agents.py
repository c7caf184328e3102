"""The OpenAI Agents SDK's ``Session`` kept as a thread of Context Network:
:class:`ContextNetworkSession`.

::

    from agents import Agent, Runner
    from ctxnet.integrations.openai_agents import ContextNetworkSession

    session = ContextNetworkSession("user-42", url="http://127.0.0.1:8000", api_key="...")
    await Runner.run(Agent(name="Assistant"), "Hello", session=session)

* **Where**: the session's items are the messages of one thread of the service,
  ``openai-agents:<session_id>`` (a digest of the id when it is not one the service takes),
  made on the first write. Conversation history so lives beside the rest of the memory: the
  insight extractor, recall, the brief and the desk read it.
* **What maps to what**: an item is one message. Its ``data`` holds the item exactly as
  added (any JSON, keys in order: a function call without role or content comes back as it
  was); its ``role`` and ``content`` are what a person or the extractor reads: a message's
  text, else a short rendering (``[function call] name(arguments)``, ``[function output]
  ...``, ``[reasoning] ...``, ``[<type>] ...``). A message appended by someone else without
  ``data`` (a person's, say) is read as ``{"role": ..., "content": ...}``.
* **Bounds**: an item must be JSON, at most 65,536 characters as compact JSON and 32 levels
  deep: else :class:`ItemTooLarge` (or ``TypeError`` for what is not JSON) before anything
  of that ``add_items`` call is written. Appends go in batches of at most 1,000 items.
* **Pop and clear never delete**: the service has no message delete, and forgetting is a
  person's action (``POST /v1/forget``). :meth:`~ContextNetworkSession.pop_item` appends a
  retraction (a ``system`` message naming the item's message id) and
  :meth:`~ContextNetworkSession.clear_session` a clear marker; :meth:`get_items` reads the
  items after the last clear marker that no retraction names. The SDK sees exactly what a
  SQLite session would show; the thread keeps what was said, and that the agent took it back.
* **Who**: every write carries the key's agent; ``ctxnet_session_id`` (an open session of the
  key's agent, ``POST /v1/sessions``) is sent as ``X-Session-ID``, so the journal attributes
  each item to it. Every read is the key's user's own.
* **Errors**: the API's errors raise as :mod:`ctxnet.client`'s exceptions; a write the
  service holds back for a person (202) raises :class:`~ctxnet.client.Proposed` (messages are
  never held today, so none does); a closed session raises ``RuntimeError``.
* **Concurrency**: calls run the synchronous client in a worker thread, so one session may be
  used from several threads and event loops at once; two pops never return the same item.
"""

from __future__ import annotations

import asyncio
import json
import threading
import uuid
from collections.abc import Mapping
from typing import Any, cast
from urllib.parse import quote

from agents.items import TResponseInputItem
from agents.memory import SessionSettings
from agents.memory.session_settings import coerce_session_settings, resolve_session_limit

from ctxnet.client import Call, Client, Conflict, NotFound
from ctxnet.integrations._threads import answer, appends, digest, thread_for

#: What a session's thread id starts with.
THREAD_PREFIX = "openai-agents:"
#: The service's bounds of a message's ``data`` (compact JSON characters, nesting).
MAX_DATA_CHARS, MAX_DATA_DEPTH = 65_536, 32
#: The service's bounds of a message's content, and of a rendering's.
MAX_CONTENT, MAX_RENDERING = 100_000, 2_000
#: Messages and (about) bytes per append.
#: The key of a control message's ``data`` (a retraction or a clear).
CONTROL = "ctxnetSession"
_ROLES = {"user": "user", "assistant": "assistant", "system": "system", "developer": "system"}
_PAGE = 1_000


class ItemTooLarge(ValueError):
    """An item past the service's bounds of ``data``: nothing of that call was written."""


def compact(item: Any) -> str:
    """``item`` as the service stores it (compact JSON); ``TypeError`` for what is not JSON,
    ``ValueError`` for a number that is not finite."""
    return json.dumps(item, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def depth(value: Any) -> int:
    """How many containers deep ``value`` nests (a scalar: 0)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            stack.extend((v, level + 1) for v in (item.values() if isinstance(item, dict) else item))
    return deepest


def _text(content: Any) -> str:
    """The readable text of a message's content (a string, or a list of parts)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return "" if content is None else compact(content)
    parts = []
    for part in content:
        if isinstance(part, Mapping):
            parts.append(str(part.get("text") or part.get("refusal") or f"[{part.get('type', 'part')}]"))
        else:
            parts.append(str(part))
    return "\n".join(parts)


def render(item: Mapping[str, Any]) -> tuple[str, str]:
    """The ``role`` and readable ``content`` of an item's message."""
    kind, role = item.get("type"), item.get("role")
    if kind in (None, "message") and role in _ROLES:
        return _ROLES[str(role)], (_text(item.get("content")) or "(empty)")[:MAX_CONTENT]
    if kind == "function_call":
        shown = f"[function call] {item.get('name')}({item.get('arguments')})"
        return "assistant", shown[:MAX_RENDERING]
    if kind == "function_call_output":
        return "tool", f"[function output] {_text(item.get('output'))}"[:MAX_RENDERING]
    if kind == "reasoning":
        summary = " ".join(
            str(s.get("text", "")) for s in item.get("summary") or [] if isinstance(s, Mapping)
        )
        return "assistant", f"[reasoning] {summary}".strip()[:MAX_RENDERING]
    return "tool", f"[{kind or 'item'}] {compact(item)}"[:MAX_RENDERING]


def item_of(message: Mapping[str, Any]) -> dict[str, Any]:
    """The item a message holds: its ``data``, else its role and content."""
    data = message.get("data")
    if isinstance(data, dict):
        return data
    role = message["role"] if message["role"] in ("user", "assistant", "system") else "system"
    return {"role": role, "content": message["content"]}


def _control(message: Mapping[str, Any]) -> Any:
    """What a control message does (``"clear"``, ``"retract"``), else ``None``."""
    data = message.get("data")
    return data.get(CONTROL) if isinstance(data, dict) else None


def fold(messages: list[dict[str, Any]], want: int | None) -> tuple[list[tuple[str, dict[str, Any]]], bool]:
    """The live items among ``messages`` (the newest ``want``, or all), oldest first, with
    their message ids; and whether that is certain without reading further back (a clear
    marker was met, or ``want`` were found)."""
    retracted: set[str] = set()
    live: list[tuple[str, dict[str, Any]]] = []
    for message in reversed(messages):
        control = _control(message)
        if control == "clear":
            return live[::-1], True
        if control == "retract":
            retracted.add(str(message["data"].get("messageId")))
        elif message["id"] not in retracted:
            live.append((message["id"], item_of(message)))
            if want is not None and len(live) >= want:
                return live[::-1], True
    return live[::-1], False


class ContextNetworkSession:
    """The SDK's ``Session`` protocol over a thread of Context Network (see the module's
    docstring): ``get_items``, ``add_items``, ``pop_item``, ``clear_session``, ``close``."""

    session_settings: SessionSettings | None = None

    def __init__(
        self,
        session_id: str,
        *,
        url: str | None = None,
        api_key: str | None = None,
        session_settings: SessionSettings | dict[str, Any] | None = None,
        ctxnet_session_id: str | None = None,
        thread_id: str | None = None,
        timeout: float = 60.0,
    ) -> None:
        """A session ``session_id`` of the API at ``url`` (else ``CTXNET_API_URL``) with
        ``api_key`` (else ``CTXNET_API_KEY``); ``session_settings`` as the SDK's (a
        ``SessionSettings`` or a dict; unknown keys are a ``TypeError``); writes attributed
        to the service's session ``ctxnet_session_id``; ``thread_id`` to name the thread."""
        self.session_id = session_id
        self.session_settings = (
            coerce_session_settings(session_settings) if session_settings is not None else SessionSettings()
        )
        self.thread_id = thread_id or thread_for(THREAD_PREFIX, session_id)
        self._client = Client(url, api_key, session_id=ctxnet_session_id, timeout=timeout)
        self._lock = threading.Lock()  # this object's pops and clears, one at a time
        self._closed = False

    # --- the Session protocol -------------------------------------------------------------
    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The session's items, oldest first: the latest ``limit`` (else the settings' limit,
        else all; 0 gives none, a negative limit all)."""
        self._check_open()
        want = resolve_session_limit(limit, self.session_settings)
        if want == 0:
            return []
        live = await asyncio.to_thread(self._live, want if want is None or want > 0 else None)
        return [cast(TResponseInputItem, item) for _, item in live]

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Append ``items`` in order, each kept exactly (:class:`ItemTooLarge` past the bounds)."""
        self._check_open()
        if not items:
            return
        rows = [self._row(i, item) for i, item in enumerate(items)]
        await asyncio.to_thread(self._append, rows)

    async def pop_item(self) -> TResponseInputItem | None:
        """Take back the newest item and return it (``None`` when there is none): a
        retraction is appended, the item's message stays in the thread."""
        self._check_open()
        return cast(TResponseInputItem | None, await asyncio.to_thread(self._pop))

    async def clear_session(self) -> None:
        """Start the session afresh: a clear marker is appended; the thread keeps its history."""
        self._check_open()
        await asyncio.to_thread(self._clear)

    def close(self) -> None:
        """Close the connections; the session refuses every call afterwards."""
        self._closed = True
        self._client.close()

    # --- the mechanics --------------------------------------------------------------------
    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("ContextNetworkSession is closed")

    def _row(self, index: int, item: Any) -> dict[str, Any]:
        """The message for ``item``, checked against the service's bounds before any write."""
        chars = len(compact(item))
        if chars > MAX_DATA_CHARS:
            raise ItemTooLarge(
                f"item {index} is {chars} characters as compact JSON; at most {MAX_DATA_CHARS}"
            )
        if depth(item) > MAX_DATA_DEPTH:
            raise ItemTooLarge(f"item {index} nests deeper than {MAX_DATA_DEPTH} levels")
        if not isinstance(item, Mapping):
            raise TypeError(f"item {index} is a {type(item).__name__}, not an input item (a mapping)")
        role, content = render(item)
        return {"id": uuid.uuid4().hex, "role": role, "content": content, "data": item}

    def _path(self) -> str:
        return f"/v1/threads/{quote(self.thread_id, safe='')}"

    def _append(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Append ``rows`` (sent again on a 503 without being stored twice: each has its id),
        creating the thread the first time it is missing; the messages as stored."""
        stored: list[dict[str, Any]] = []
        for batch in appends(
            rows, lambda row: len(row["content"].encode()) + len(compact(row["data"]).encode()) + 200
        ):
            call = Call("POST", f"{self._path()}/messages", {"messages": batch}, idempotent=True)
            try:
                page = answer(self._client, call)
            except NotFound:
                topic = f"OpenAI Agents session {self.session_id}"[:500]
                answer(self._client, Call("POST", "/v1/threads", {"id": self.thread_id, "topic": topic}))
                page = answer(self._client, call)
            stored.extend(page["items"])
        return stored

    def _messages_after(self, seq: int) -> list[dict[str, Any]]:
        """The thread's messages after position ``seq``, in order."""
        messages: list[dict[str, Any]] = []
        cursor: str | None = str(seq) if seq else None
        while True:
            query = {"limit": _PAGE} | ({"cursor": cursor} if cursor else {})
            page = self._client.request_json("GET", f"{self._path()}/messages", params=query)
            messages.extend(page["items"])
            if not (cursor := page.get("nextCursor")):
                return messages

    def _live(self, want: int | None) -> list[tuple[str, dict[str, Any]]]:
        """The newest ``want`` live items (all when ``None``), read from the thread's end back
        only as far as needed (a message's position is its ``seq``, the cursor's form)."""
        try:
            count = int(self._client.request_json("GET", self._path())["messageCount"])
        except NotFound:
            return []
        window = 2 * want + 16 if want else 256
        while True:
            start = max(0, count - window)
            live, certain = fold(self._messages_after(start), want)
            if certain or start == 0:
                return live
            window *= 4

    def _pop(self) -> dict[str, Any] | None:
        """Retract the newest live item; another caller's retraction of the same item makes
        this one look again (its retraction has the same id, so only one is stored)."""
        with self._lock:
            for _ in range(16):
                live = self._live(1)
                if not live:
                    return None
                message_id, item = live[-1]
                nonce = uuid.uuid4().hex
                _, content = render(item)
                marker_id = f"pop-{message_id}" if len(message_id) <= 120 else f"pop-{digest(message_id)}"
                shown = f"[retracted by the agent] {content}"[:MAX_RENDERING]
                data = {CONTROL: "retract", "messageId": message_id, "by": nonce}
                marker = {"id": marker_id, "role": "system", "content": shown, "data": data}
                try:
                    [stored] = self._append([marker])
                except Conflict:
                    continue
                if (stored.get("data") or {}).get("by") == nonce:
                    return item
            raise RuntimeError("pop_item: other callers kept taking back the same items; try again")

    def _clear(self) -> None:
        """Append a clear marker, unless nothing is live (no marker on an empty session)."""
        with self._lock:
            if not self._live(1):
                return
            text = "[session cleared by the agent: the messages above stay in this thread as its history]"
            self._append(
                [{"id": uuid.uuid4().hex, "role": "system", "content": text, "data": {CONTROL: "clear"}}]
            )
