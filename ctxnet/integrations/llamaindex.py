"""A LlamaIndex memory block backed by Context Network: :class:`ContextNetworkMemoryBlock`.

::

    from llama_index.core.memory import Memory
    from ctxnet.integrations.llamaindex import ContextNetworkMemoryBlock, offline_tokenizer

    block = ContextNetworkMemoryBlock(url="http://127.0.0.1:8000", api_key="...")
    memory = Memory.from_defaults(
        session_id="chat-1", memory_blocks=[block], tokenizer_fn=offline_tokenizer()
    )

* **Get** (``aget``): what the service holds for the latest messages, as one markdown text
  within ``token_budget`` tokens (counted by the service, o200k): a *brief* on them
  (``source="brief"``, the default: decisions, notes, saved sessions and insights relevant to
  the last ``recent_messages`` messages) or the *context bridge* (``source="bridge"``: the
  agent's last sessions, open pending actions, memory on those messages, the user's profile).
  ``memory.aget(token_budget=...)`` overrides the budget for one call. When the ``Memory``
  must shrink its memory blocks, :meth:`ContextNetworkMemoryBlock.atruncate` keeps the
  leading lines (each section is most relevant first) within what the ``Memory`` leaves;
  ``priority`` defaults to 1 so that it may (LlamaIndex never truncates a block of 0).
* **Put** (``aput``): the messages the ``Memory`` flushes from its short-term queue are
  appended, in order, to a thread of this service: ``thread_id``, else
  ``llamaindex:<the Memory's session_id>`` (created on first use). Roles map to the
  service's four (``developer`` is ``system``; ``chatbot`` and ``model`` are ``assistant``;
  ``function`` is ``tool``); a message's text is its content, a tool call is rendered as
  ``[tool call] name({...})``.
* **Who**: every call carries the key's agent; ``ctxnet_session_id`` (an open session of the
  key's agent, ``POST /v1/sessions``) is sent as ``X-Session-ID``, so the journal attributes
  the appended messages to it. Every read is the key's user's own.
* **Errors**: the API's errors are raised as :mod:`ctxnet.client`'s exceptions
  (:class:`~ctxnet.client.NotFound`, :class:`~ctxnet.client.InvalidInput`, ...); a write the
  service holds back for a person (202) raises :class:`~ctxnet.client.Proposed` carrying the
  proposal; a message over the service's 100,000 characters raises :class:`MessageTooLarge`
  before anything is written. Nothing is dropped silently.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Literal
from urllib.parse import quote

from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock
from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.memory import BaseMemoryBlock

from ctxnet.client import Call, Client, NotFound
from ctxnet.integrations._threads import answer, appends, thread_for

#: What a thread id of a ``Memory`` session starts with.
THREAD_PREFIX = "llamaindex:"
#: The service's bounds: a message's characters, a brief's task, messages and bytes per append.
MAX_CONTENT, MAX_TASK = 100_000, 2_000
_ROLES = {
    MessageRole.USER: "user",
    MessageRole.ASSISTANT: "assistant",
    MessageRole.CHATBOT: "assistant",
    MessageRole.MODEL: "assistant",
    MessageRole.SYSTEM: "system",
    MessageRole.DEVELOPER: "system",
    MessageRole.TOOL: "tool",
    MessageRole.FUNCTION: "tool",
}


class MessageTooLarge(ValueError):
    """A message longer than the service keeps (100,000 characters): nothing was written."""


def offline_tokenizer() -> Callable[[str], list[Any]]:
    """A token counter that needs no download: the service's own o200k encoding
    (``bpe-openai``) when installed, else whitespace-separated words. Give the same one to
    the ``Memory`` (``tokenizer_fn=``), whose default (tiktoken) downloads its file."""
    try:
        with warnings.catch_warnings():
            # bpe-openai 0.1.4 reads its ranks with a deprecated importlib.resources call.
            warnings.simplefilter("ignore", DeprecationWarning)
            import bpe_openai

            encoding = bpe_openai.get_encoding("o200k_base")
    except ImportError:
        return str.split
    encode: Callable[[str], list[Any]] = encoding.encode
    return encode


def readable(message: ChatMessage) -> str:
    """What a person (or the insight extractor) reads of a message: its text, and its tool
    calls rendered as ``[tool call] name({...})``."""
    parts = [message.content] if message.content else []
    for block in message.blocks:
        if isinstance(block, ToolCallBlock):
            parts.append(f"[tool call] {block.tool_name}({block.tool_kwargs})")
    for call in message.additional_kwargs.get("tool_calls") or []:
        function = call.get("function", {}) if isinstance(call, dict) else {}
        if function:
            parts.append(f"[tool call] {function.get('name')}({function.get('arguments')})")
    return "\n".join(parts).strip() or "(no text)"


def latest_text(messages: Sequence[ChatMessage], count: int) -> str:
    """The last ``count`` messages that are not system messages, as one text of at most
    :data:`MAX_TASK` characters (the newest kept when it must be cut)."""
    chosen = [m for m in messages if m.role not in (MessageRole.SYSTEM, MessageRole.DEVELOPER)][-count:]
    text = "\n".join(m.content for m in chosen if m.content).strip()
    return text[-MAX_TASK:].strip()


class ContextNetworkMemoryBlock(BaseMemoryBlock[str]):
    """A memory block whose get is what Context Network holds for the latest messages (a
    brief or the context bridge, within a token budget) and whose put appends the flushed
    messages to a thread of the service (see the module's docstring)."""

    name: str = Field(default="context_network", description="The block's name in the memory.")
    description: str | None = Field(
        default="What Context Network holds for the latest messages: notes, decisions, insights.",
        description="A description of the memory block.",
    )
    priority: int = Field(default=1, description="1: the Memory may truncate it to its budget.")
    url: str | None = Field(default=None, description="The API; else CTXNET_API_URL.")
    api_key: str | None = Field(default=None, exclude=True, repr=False, description="Else CTXNET_API_KEY.")
    source: Literal["brief", "bridge"] = Field(default="brief", description="What a get returns.")
    token_budget: int = Field(default=1_000, ge=50, le=32_000, description="Most tokens of a get.")
    recent_messages: int = Field(default=4, ge=1, le=50, description="How many latest messages a get is for.")
    agent_id: str | None = Field(default=None, description="The bridge's agent (a person's key names one).")
    ctxnet_session_id: str | None = Field(
        default=None, description="An open session of the key's agent, sent as X-Session-ID."
    )
    thread_id: str | None = Field(default=None, description="Where puts go; else per Memory session.")
    tokenizer_fn: Callable[[str], list[Any]] = Field(
        default_factory=offline_tokenizer, exclude=True, description="Counts tokens for atruncate."
    )
    _client: Client | None = PrivateAttr(default=None)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def model_post_init(self, context: Any, /) -> None:
        """Refuse a budget the brief cannot give (it needs at least 200 tokens)."""
        super().model_post_init(context)
        if self.source == "brief" and self.token_budget < 200:
            raise ValueError("a brief needs token_budget >= 200 (the bridge >= 50)")

    @property
    def client(self) -> Client:
        """The block's client (made on first use, shared by every thread that uses the block)."""
        with self._lock:
            if self._client is None:
                self._client = Client(self.url, self.api_key, session_id=self.ctxnet_session_id)
            return self._client

    def close(self) -> None:
        """Close the block's connections."""
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None

    async def _aget(self, messages: list[ChatMessage] | None = None, **block_kwargs: Any) -> str:
        """What the service holds for the latest messages, within the token budget."""
        task = latest_text(messages or [], self.recent_messages)
        budget = int(block_kwargs.get("token_budget") or self.token_budget)
        return await asyncio.to_thread(self._read, task, budget)

    def _read(self, task: str, budget: int) -> str:
        """The brief (or bridge) text for ``task``; empty when the service holds nothing for it."""
        if self.source == "bridge":
            sent: dict[str, Any] = {"tokenBudget": budget}
            sent |= {"topic": task} if task else {}
            sent |= {"agentId": self.agent_id} if self.agent_id else {}
            bridge = answer(self.client, Call("POST", "/v1/context/bridge", sent))
            sections = bridge["sections"]
            held = any(sections.get(s) for s in ("recentSessions", "pendingActions", "memory", "profile"))
            return str(bridge.get("text") or "") if held else ""
        if not task:
            return ""
        brief = answer(self.client, Call("POST", "/v1/brief", {"task": task, "tokenBudget": budget}))
        return str(brief["text"]) if any(brief["sections"].values()) else ""

    async def atruncate(self, content: str, tokens_to_truncate: int) -> str | None:
        """The leading lines of ``content`` within ``tokens_to_truncate`` fewer tokens (each
        section of the text is most relevant first); ``None`` when no line fits."""
        target = len(self.tokenizer_fn(content)) - tokens_to_truncate
        kept: list[str] = []
        used = 0
        for line in content.splitlines(keepends=True):
            used += len(self.tokenizer_fn(line))
            if used > target:
                break
            kept.append(line)
        text = "".join(kept).rstrip()
        return text or None

    async def _aput(self, messages: list[ChatMessage]) -> None:
        """Append ``messages`` in order to the thread of their Memory session (or ``thread_id``)."""
        groups: dict[str, list[dict[str, Any]]] = {}
        for i, message in enumerate(messages):
            content = readable(message)
            if len(content) > MAX_CONTENT:
                raise MessageTooLarge(
                    f"message {i} has {len(content)} characters; the service keeps at most {MAX_CONTENT}"
                )
            row = {"id": uuid.uuid4().hex, "role": _ROLES.get(message.role, "user"),
                   "content": content}  # fmt: skip
            groups.setdefault(self._thread_of(message), []).append(row)
        for thread_id, rows in groups.items():
            await asyncio.to_thread(self._append, thread_id, rows)

    def _thread_of(self, message: ChatMessage) -> str:
        """The thread a flushed message goes to."""
        if self.thread_id:
            return self.thread_id
        session = message.additional_kwargs.get("session_id")
        if not session:
            raise ValueError("no thread for these messages: set thread_id, or put them through a Memory")
        return thread_for(THREAD_PREFIX, str(session))

    def _append(self, thread_id: str, rows: list[dict[str, Any]]) -> None:
        """Append ``rows`` (each with its id: sent again on a 503 without being stored twice),
        creating the thread the first time it is missing."""
        path = f"/v1/threads/{quote(thread_id, safe='')}/messages"
        for batch in appends(rows, lambda row: len(row["content"].encode()) + 200):
            call = Call("POST", path, {"messages": batch}, idempotent=True)
            try:
                answer(self.client, call)
            except NotFound:
                topic = f"LlamaIndex chat {thread_id.removeprefix(THREAD_PREFIX)}"[:500]
                answer(self.client, Call("POST", "/v1/threads", {"id": thread_id, "topic": topic}))
                answer(self.client, call)
