"""A LangGraph store kept in Context Network: :class:`ContextNetworkStore`, a ``BaseStore``.

Each item is a note of the key's user (``dedupe: false``): id ``lg.<sha256 of [namespace,
key]>``, title ``ns/.../key``, ``data`` ``{"namespace", "key", "value"}`` (the value exactly;
``"index": false`` for an item not searched by meaning), ``content`` the text of the ``index``
fields (``["$"]``, the whole value, by default), clipped to the service's word limit: what it
embeds. Tags: ``langgraph``, and one per prefix of the namespace (``lg:a/b``, or ``lg#<sha256>``
for labels that are not plain or long), so a prefix is one tag to search or list. A ``query``
ranks by meaning among the prefix's items (the service ranks 100 at most; matching items past
them follow unscored), ``filter`` is applied here before ``offset`` and ``limit``. Every write
carries the key's agent and a session (``session_id``, else ``langgraph:<thread_id>`` inside a
LangGraph run); a write over a person's word waits as a proposal and raises
:class:`ItemProposed` after the batch (or warns, ``on_proposal="warn"``). docs/integrations.md
says the rest: bounds, errors, an example.
"""

from __future__ import annotations

import hashlib
import json
import re
import warnings
from collections.abc import Callable, Generator, Iterable, Mapping
from datetime import datetime
from itertools import takewhile
from typing import Any, Literal, NamedTuple, TypeVar
from urllib.parse import quote

import httpx
from langgraph.store.base import (
    BaseStore,
    GetOp,
    IndexConfig,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    get_text_at_path,
    validate_op_namespace,
)
from langgraph.store.memory import _compare_values, _does_match

from ctxnet.client import ApiError, AsyncClient, Call, Client, error_of
from ctxnet.wire.core import LimitsOut

T = TypeVar("T")
#: One operation as requests: each ``Call`` yielded is answered by its response.
Step = Generator[Call, httpx.Response, T]

ROOT_TAG = "langgraph"
#: Labels a namespace may have: the service keeps 32 tags a note (the root and one per prefix).
MAX_LABELS = 30
#: The most notes one search of the service ranks (``topK``).
SEARCH_TOP_K = 100
#: Notes a listing page asks for (the service's most).
PAGE = 500
_PLAIN = re.compile(r"^[A-Za-z0-9_-]+$")
_SESSION = re.compile(r"^[A-Za-z0-9._:@-]{1,100}$")


def note_id(namespace: tuple[str, ...], key: str) -> str:
    """The id of the note that keeps ``key`` in ``namespace``."""
    return "lg." + _digest([list(namespace), key])


def namespace_tag(prefix: tuple[str, ...]) -> str:
    """The tag every item under ``prefix`` carries (``langgraph`` for the empty prefix)."""
    if not prefix:
        return ROOT_TAG
    plain = "/".join(prefix)
    if all(_PLAIN.match(label) for label in prefix) and len(plain) <= 60:
        return f"lg:{plain}"
    return "lg#" + _digest(list(prefix))


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, ensure_ascii=False).encode()).hexdigest()[:40]


def index_text(value: Mapping[str, Any], fields: list[str]) -> str:
    """The text of ``value`` at ``fields`` (LangGraph's paths), one line each."""
    return "\n".join(text for path in fields for text in get_text_at_path(dict(value), path) if text.strip())


def clip_words(text: str, limits: LimitsOut) -> str:
    """``text`` stripped, within the server's ``limits``: its words, then its characters."""
    words = text.split()
    clipped = " ".join(words[: limits.max_note_words]) if len(words) > limits.max_note_words else text.strip()
    return clipped[: limits.max_content_chars].strip()


class ItemProposed(ApiError):
    """202: a put or delete of an item a person wrote or corrected was not applied; it waits
    as a proposal for a person. ``proposal`` is the first one (``{"id", "status", ...}``),
    ``held`` every such write of the batch (the batch's other operations were applied)."""

    def __init__(self, held: list[HeldWrite]) -> None:
        first = held[0]
        where = "/".join((*first.namespace, first.key))
        more = f" (and {len(held) - 1} more)" if len(held) > 1 else ""
        message = f"{where}{more} waits as proposal {first.proposal.get('id')} for a person"
        super().__init__(202, "proposed", message, None, [w.proposal for w in held])
        self.namespace, self.key, self.proposal, self.held = first.namespace, first.key, first.proposal, held


class ItemProposedWarning(UserWarning):
    """``on_proposal="warn"``: a write waits as a proposal for a person (see :class:`ItemProposed`)."""


class HeldWrite(NamedTuple):
    """A write the service held back for a person."""

    namespace: tuple[str, ...]
    key: str
    proposal: dict[str, Any]


class ContextNetworkStore(BaseStore):
    """LangGraph's ``BaseStore`` over Context Network (the module docstring says the mapping)."""

    supports_ttl = False

    def __init__(
        self,
        *,
        url: str | None = None,
        api_key: str | None = None,
        index: IndexConfig | None = None,
        session_id: str | None = None,
        mode: Literal["vector", "hybrid"] = "vector",
        on_proposal: Literal["raise", "warn"] = "raise",
        timeout: float = 60.0,
    ) -> None:
        self._url, self._key, self._timeout = url, api_key, timeout
        self.fields: list[str] = list((index or {}).get("fields") or ["$"])
        self.session_id, self.mode, self.on_proposal = session_id, mode, on_proposal
        #: The server's limits (``GET /v1/limits``), read on the first put of a value.
        self.limits: LimitsOut | None = None
        self._client: Client | None = None
        self._aclient: AsyncClient | None = None
        self._sessions: dict[str, str | None] = {}

    @property
    def client(self) -> Client:
        """The synchronous client (made on first use)."""
        self._client = self._client or Client(self._url, self._key, timeout=self._timeout)
        return self._client

    @property
    def aclient(self) -> AsyncClient:
        """The asynchronous client (made on first use)."""
        self._aclient = self._aclient or AsyncClient(self._url, self._key, timeout=self._timeout)
        return self._aclient

    async def aclose(self) -> None:
        """Close the clients' connections."""
        if self._client is not None:
            self._client.close()
        if self._aclient is not None:
            await self._aclient.aclose()

    # --- BaseStore ----------------------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ``ops`` in order, each through the service."""
        ops = _checked(ops)
        headers = self._drive(self._session_step())
        held: list[HeldWrite] = []
        results = [self._drive(self._step(op, held), headers) for op in ops]
        self._surface(held)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ``ops`` in order, each through the service, awaited."""
        ops = _checked(ops)
        headers = await self._adrive(self._session_step())
        held: list[HeldWrite] = []
        results = [await self._adrive(self._step(op, held), headers) for op in ops]
        self._surface(held)
        return results

    def _drive(self, step: Step[T], headers: Mapping[str, str] | None = None) -> T:
        try:
            call = next(step)
            while True:
                call = step.send(self.client.send(call, headers))
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]

    async def _adrive(self, step: Step[T], headers: Mapping[str, str] | None = None) -> T:
        try:
            call = next(step)
            while True:
                call = step.send(await self.aclient.send(call, headers))
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]

    def _surface(self, held: list[HeldWrite]) -> None:
        if held and self.on_proposal == "raise":
            raise ItemProposed(held)
        for write in held:
            warnings.warn(str(ItemProposed([write])), ItemProposedWarning, stacklevel=3)

    def _step(self, op: Op, held: list[HeldWrite]) -> Step[Any]:
        if isinstance(op, GetOp):
            return self._get(op)
        if isinstance(op, PutOp):
            return self._put(op, held)
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(op)
        raise ValueError(f"Unknown operation type: {type(op)}")

    # --- who ----------------------------------------------------------------------------------
    def _session_step(self) -> Step[dict[str, str] | None]:
        """The ``X-Session-ID`` header: ``session_id``, else the LangGraph run's thread's."""
        if self.session_id:
            return {"X-Session-ID": self.session_id}
        thread = _thread_id()
        if thread is None:
            return None
        if thread not in self._sessions:
            session = "langgraph:" + (thread if _SESSION.match(thread) else _digest(thread))
            body = {"id": session, "topic": f"LangGraph thread {thread}"[:500]}
            answer = yield Call("POST", "/v1/sessions", body)
            # A person's key, or a key of no agent, has no session: its writes carry the key alone.
            self._sessions[thread] = session if answer.status_code in (200, 201) else None
        known = self._sessions[thread]
        return {"X-Session-ID": known} if known else None

    # --- operations ---------------------------------------------------------------------------
    def _get(self, op: GetOp) -> Step[Item | None]:
        answer = yield Call("GET", f"/v1/knowledge/{_seg(note_id(op.namespace, op.key))}")
        if answer.status_code == 404:
            return None
        item = _item(_ok(answer))
        return item if item is not None and (item.namespace, item.key) == (op.namespace, op.key) else None

    def _put(self, op: PutOp, held: list[HeldWrite]) -> Step[None]:
        path = f"/v1/knowledge/{_seg(note_id(op.namespace, op.key))}"
        if op.value is None:
            answer = yield Call("DELETE", path)
            if answer.status_code == 202:
                held.append(HeldWrite(op.namespace, op.key, _proposal(answer)))
            elif answer.status_code not in (204, 404):
                raise error_of(answer)
            return None
        if self.limits is None:
            self.limits = LimitsOut.model_validate(_ok((yield Call("GET", "/v1/limits"))))
        for _ in range(4):
            patch = self._fields(op, self.limits)
            answer = yield Call("PATCH", path, patch)
            if answer.status_code == 404:
                answer = yield Call("POST", "/v1/knowledge", self._new_note(op, patch))
                if answer.status_code in (200, 409):  # made meanwhile by another caller: write over it
                    continue
            if answer.status_code == 202:
                held.append(HeldWrite(op.namespace, op.key, _proposal(answer)))
                return None
            if answer.status_code < 300:
                return None
            raise error_of(answer)
        raise error_of(answer)

    def _fields(self, op: PutOp, limits: LimitsOut) -> dict[str, Any]:
        """What a put writes over an existing note: its content and its data."""
        value = dict(op.value or {})
        fields = [] if op.index is False else (self.fields if op.index is None else list(op.index))
        text = clip_words(index_text(value, fields), limits)
        data: dict[str, Any] = {"namespace": list(op.namespace), "key": op.key, "value": value}
        if not text:  # nothing to rank it by: LangGraph's unindexed item
            data["index"] = False
        return {"content": text or _title(op.namespace, op.key), "data": data}

    def _new_note(self, op: PutOp, fields: dict[str, Any]) -> dict[str, Any]:
        tags = [namespace_tag(op.namespace[:n]) for n in range(len(op.namespace) + 1)]
        title = _title(op.namespace, op.key)
        return {"id": note_id(op.namespace, op.key), "title": title, "type": "fact", "tags": tags} | {
            "dedupe": False, **fields
        }  # fmt: skip

    def _search(self, op: SearchOp) -> Step[list[SearchItem]]:
        want = op.offset + op.limit
        tag = namespace_tag(op.namespace_prefix)
        ranked: list[SearchItem] = []
        complete = True
        if op.query and want > 0:
            top_k = SEARCH_TOP_K if op.filter else max(1, min(SEARCH_TOP_K, want))
            answer = _ok((yield Call("POST", "/v1/search", self._query(op.query, tag, top_k))))
            complete = len(answer["hits"]) < top_k and not answer.get("truncated")
            for hit in answer["hits"]:
                item = _hit(hit["node"], hit.get("score"))
                if item and _indexed(hit["node"]) and _within(item, op) and matches(item.value, op.filter):
                    ranked.append(item)
            if len(ranked) >= want:
                return ranked[op.offset : want]
        seen = {(item.namespace, item.key) for item in ranked}

        def keep(item: SearchItem, note: dict[str, Any]) -> bool:
            # After a complete ranking only the unindexed items are left to add.
            fresh = (item.namespace, item.key) not in seen and not (op.query and complete and _indexed(note))
            return fresh and _within(item, op) and matches(item.value, op.filter)

        rest = yield from self._listing(tag, keep, want - len(ranked))
        return (ranked + rest)[op.offset : want]

    def _query(self, query: str, tag: str, top_k: int) -> dict[str, Any]:
        # Every item counts, whatever the service reads of it: status, an ended validity, one source.
        filters = {"tags": [tag], "status": ["active", "superseded", "archived"]}
        return {"query": query[:4_000], "topK": top_k, "mode": self.mode, "filters": filters} | {
            "expandConnections": False, "collapseBy": "none", "includeEnded": True
        }  # fmt: skip

    def _listing(
        self, tag: str, keep: Callable[[SearchItem, dict[str, Any]], bool], need: int | None
    ) -> Step[list[SearchItem]]:
        """The items tagged ``tag`` that ``keep`` keeps, newest first: ``need`` of them, or all."""
        kept: list[SearchItem] = []
        cursor: str | None = None
        while need is None or len(kept) < need:
            query = {"tag": tag, "limit": PAGE} | ({"cursor": cursor} if cursor else {})
            page = _ok((yield Call("GET", "/v1/knowledge", params=query)))
            for note in page.get("items", []):
                item = _hit(note, None)
                if item is not None and keep(item, note):
                    kept.append(item)
            if not (cursor := page.get("nextCursor")):
                break
        return kept if need is None else kept[: max(need, 0)]

    def _list_namespaces(self, op: ListNamespacesOp) -> Step[list[tuple[str, ...]]]:
        conditions = tuple(op.match_conditions or ())
        prefixes = [tuple(takewhile("*".__ne__, c.path)) for c in conditions if c.match_type == "prefix"]
        literal = max(prefixes, key=len, default=())[:MAX_LABELS]
        found: set[tuple[str, ...]] = set()

        def keep(item: SearchItem, note: dict[str, Any]) -> bool:
            if all(_does_match(c, item.namespace) for c in conditions):
                found.add(item.namespace if op.max_depth is None else item.namespace[: op.max_depth])
            return False

        yield from self._listing(namespace_tag(literal), keep, None)
        return sorted(found)[op.offset : op.offset + op.limit]


def _checked(ops: Iterable[Op]) -> list[Op]:
    """The ops, their namespaces checked as LangGraph checks them (and within 30 labels)."""
    listed = list(ops)
    for op in listed:
        validate_op_namespace(op)
        namespace = op.namespace if isinstance(op, (GetOp, PutOp)) else ()
        if len(namespace) > MAX_LABELS:
            raise InvalidNamespaceError(f"Namespace {namespace} has more than {MAX_LABELS} labels.")
    return listed


def _thread_id() -> str | None:
    """The ``thread_id`` of the LangGraph run this is called in, if any."""
    try:
        from langgraph.config import get_config

        thread = get_config().get("configurable", {}).get("thread_id")
    except RuntimeError:  # not inside a run
        return None
    return str(thread) if thread is not None else None


def _title(namespace: tuple[str, ...], key: str) -> str:
    return "/".join((*namespace, key))[:300].strip() or "langgraph item"


def _seg(value: str) -> str:
    return quote(value, safe="")


def _ok(answer: httpx.Response) -> Any:
    if answer.status_code >= 300:
        raise error_of(answer)
    return answer.json()


def _proposal(answer: httpx.Response) -> dict[str, Any]:
    proposal = answer.json().get("proposal")
    return proposal if isinstance(proposal, dict) else {}


def _indexed(note: dict[str, Any]) -> bool:
    data = note.get("data")
    return not (isinstance(data, dict) and data.get("index") is False)


def _within(item: Item, op: SearchOp) -> bool:
    return item.namespace[: len(op.namespace_prefix)] == tuple(op.namespace_prefix)


def _item(note: dict[str, Any]) -> Item | None:
    """The item a note keeps (``None`` for a note that is not one)."""
    hit = _hit(note, None)
    return None if hit is None else Item(**{k: v for k, v in hit.dict().items() if k != "score"})


def _hit(note: dict[str, Any], score: float | None) -> SearchItem | None:
    """The item a note keeps, with a search's score (``None`` for a note that is not one)."""
    data = note.get("data")
    if not isinstance(data, dict):
        return None
    namespace, key, value = data.get("namespace"), data.get("key"), data.get("value")
    if not (isinstance(namespace, list) and all(isinstance(label, str) for label in namespace)):
        return None
    if not (isinstance(key, str) and isinstance(value, dict)):
        return None
    return SearchItem(
        namespace=tuple(namespace),
        key=key,
        value=value,
        created_at=datetime.fromisoformat(note["createdAt"]),
        updated_at=datetime.fromisoformat(note["updatedAt"]),
        score=score,
    )


# --- LangGraph's value filters and namespace patterns: its in-memory store's own -------------
def matches(value: Mapping[str, Any], filter: Mapping[str, Any] | None) -> bool:  # noqa: A002
    """Whether ``value`` passes a LangGraph ``filter`` (equality, nested objects and lists, ``$eq
    $ne $gt $gte $lt $lte``) exactly as ``InMemoryStore`` answers; a comparison it cannot make
    (a missing or non-numeric field) fails, as in the Postgres store, where it would raise."""
    try:
        return not filter or all(_compare_values(value.get(key), wanted) for key, wanted in filter.items())
    except (TypeError, ValueError) as error:
        if "Unsupported operator" in str(error):
            raise
        return False


__all__ = [
    "ContextNetworkStore",
    "HeldWrite",
    "ItemProposed",
    "ItemProposedWarning",
    "namespace_tag",
    "note_id",
]
