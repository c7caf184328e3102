"""LangGraph's store over the real service: the behaviours LangGraph's own store tests check
(libs/checkpoint/tests/test_store.py for ``InMemoryStore``, libs/checkpoint-postgres/tests/
test_store.py for ``PostgresStore``), answered as ``InMemoryStore`` answers them, and what this
service adds (a person's word, the agent and session on every write, every read the user's own)."""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
import pytest_asyncio
from langgraph.graph import START, StateGraph
from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchOp,
)
from langgraph.store.memory import InMemoryStore
from typing_extensions import TypedDict

from ctxnet.integrations.langgraph import ContextNetworkStore, ItemProposed, ItemProposedWarning, note_id
from graph.core.principals import Role
from tests.integration.conftest import Caller, MakeCaller
from tests.support.doc_examples import example
from tests.support.servers import ApiProcess

MakeStore = Callable[..., ContextNetworkStore]
#: docs/integrations.md's example, run by :func:`test_the_documented_example_runs`.
LANGGRAPH_EXAMPLE = example("integrations.md", "## LangGraph")


@pytest_asyncio.fixture
async def make_store(api: ApiProcess) -> AsyncIterator[MakeStore]:
    """Stores over the API for callers' keys (closed afterwards)."""
    made: list[ContextNetworkStore] = []

    def make(caller: Caller, **options: Any) -> ContextNetworkStore:
        store = ContextNetworkStore(url=api.base_url, api_key=caller.key, **options)
        made.append(store)
        return store

    yield make
    for store in made:
        await store.aclose()


def both(store: ContextNetworkStore) -> list[BaseStore]:
    """Ours beside LangGraph's in-memory store, to be asked the same."""
    return [store, InMemoryStore()]


def same(stores: list[BaseStore], ask: Callable[[BaseStore], Any]) -> Any:
    """What ``ask`` answers of every store, asserted equal; the first's answer."""
    answers = [ask(store) for store in stores]
    assert all(answer == answers[0] for answer in answers[1:]), answers
    return answers[0]


# --- list_namespaces (test_store.py: test_list_namespaces_*) --------------------------------
async def test_list_namespaces_as_in_memory(make_caller: MakeCaller, make_store: MakeStore) -> None:
    stores = both(make_store(await make_caller()))
    namespaces = [
        ("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f"), ("a", "c", "f"),
        ("b", "a", "f"), ("users", "123"), ("users", "456", "settings"), ("admin", "users", "789"),
    ]  # fmt: skip
    for store in stores:
        assert store.list_namespaces() == []
        for i, ns in enumerate(namespaces):
            store.put(ns, f"id_{i}", {"data": f"value_{i:02d}"})
    asked: list[dict[str, Any]] = [
        {"prefix": ("a", "b")}, {"suffix": ("f",)}, {"prefix": ("a",), "suffix": ("f",)},
        {"prefix": ("a", "b"), "max_depth": 3}, {"prefix": ("a", "b"), "limit": 2},
        {"prefix": ("a", "b"), "offset": 2}, {"prefix": ("a", "*", "f")}, {"suffix": ("*", "f")},
        {"prefix": ("nonexistent",)}, {"prefix": ("users", "123")}, {"max_depth": 2}, {},
        {"prefix": ("users", "*")}, {"suffix": ("*", "settings")},
        {"prefix": ("*", "users"), "suffix": ("*", "789")},
    ]  # fmt: skip
    for options in asked:
        same(stores, lambda store, o=options: store.list_namespaces(**o))  # type: ignore[misc]
    assert same(stores, lambda s: s.list_namespaces(prefix=("a", "b"), max_depth=3)) == [
        ("a", "b", "c"), ("a", "b", "d"), ("a", "b", "f"),
    ]  # fmt: skip


async def test_list_namespaces_pages_and_segments(make_caller: MakeCaller, make_store: MakeStore) -> None:
    stores = both(make_store(await make_caller()))
    for store in stores:
        for i in range(20):
            store.put(("namespace", f"sub_{i:02d}"), f"id_{i:02d}", {"data": i})
        for ns in [
            ("foo",),
            ("foo", "child"),
            ("foobar",),
            ("uid", "users", "alice"),
            ("uid", "users", "malice"),
        ]:
            store.put(ns, "k", {"v": 1})
        store.put(("users", "alice\n"), "k", {"v": 2})  # a label may hold a newline
        store.put(("users", "alice"), "k", {"v": 1})
    for offset in (0, 5, 15):
        page = same(stores, lambda s, o=offset: s.list_namespaces(prefix=("namespace",), limit=5, offset=o))  # type: ignore[misc]
        assert page == [("namespace", f"sub_{i:02d}") for i in range(offset, offset + 5)]
    assert set(same(stores, lambda s: s.list_namespaces(prefix=("foo",)))) == {("foo",), ("foo", "child")}
    assert set(same(stores, lambda s: s.list_namespaces(suffix=("alice",)))) == {
        ("uid", "users", "alice"), ("users", "alice"),
    }  # fmt: skip
    assert same(stores, lambda s: s.list_namespaces(prefix=("users", "alice"))) == [("users", "alice")]


async def test_invalid_namespaces_as_langgraph(make_caller: MakeCaller, make_store: MakeStore) -> None:
    store = make_store(await make_caller())
    doc = {"foo": "bar"}
    for bad in [(), ("the", "thing.about"), ("some", "fun", ""), ("langgraph", "foo")]:
        with pytest.raises(InvalidNamespaceError):
            store.put(bad, "foo", doc)
        with pytest.raises(InvalidNamespaceError):
            await store.aput(bad, "foo", doc)
    with pytest.raises(InvalidNamespaceError):
        store.batch([GetOp(("a", "b.c"), "k")])  # ops given straight to batch are checked too
    with pytest.raises(InvalidNamespaceError):
        store.put(tuple(f"l{i}" for i in range(31)), "k", doc)  # this store's bound: 30 labels
    with pytest.raises(NotImplementedError):
        store.put(("a",), "k", doc, ttl=5)
    # "langgraph" is refused only as the root of a put, as LangGraph's stores do.
    await store.aput(("foo", "langgraph", "foo"), "bar", doc)
    assert (await store.aget(("foo", "langgraph", "foo"), "bar")).value == doc  # type: ignore[union-attr]
    assert (await store.asearch(("foo", "langgraph", "foo"), query="bar"))[0].value == doc
    await store.adelete(("foo", "langgraph", "foo"), "bar")
    assert await store.aget(("foo", "langgraph", "foo"), "bar") is None
    store.batch([PutOp(("langgraph", "foo"), "bar", doc)])
    assert store.get(("langgraph", "foo"), "bar").value == doc  # type: ignore[union-attr]
    assert store.search(("langgraph", "foo"))[0].value == doc
    store.delete(("langgraph", "foo"), "bar")
    assert store.get(("langgraph", "foo"), "bar") is None


# --- batch, get, put, delete, search (test_store.py of the Postgres store) -------------------
async def test_batch_keeps_order(make_caller: MakeCaller, make_store: MakeStore) -> None:
    stores = both(make_store(await make_caller()))
    for store in stores:
        store.put(("test", "foo"), "key1", {"data": "value1"})
        store.put(("test", "bar"), "key2", {"data": "value2"})
    ops = [
        GetOp(("test", "foo"), "key1"),
        PutOp(("test", "bar"), "key2", {"data": "value2"}),
        SearchOp(("test",), filter={"data": "value1"}, limit=10, offset=0),
        ListNamespacesOp(match_conditions=None, max_depth=None, limit=10, offset=0),
        GetOp(("test",), "key3"),
        PutOp(("test",), "key4", None),
        SearchOp(("test",), limit=1, offset=1),
        ListNamespacesOp(match_conditions=(MatchCondition("suffix", ("bar",)),)),
    ]
    for results in [store.batch(ops) for store in stores] + [await stores[0].abatch(ops)]:
        assert isinstance(results[0], Item) and results[0].value == {"data": "value1"}
        assert results[1] is None and results[4] is None and results[5] is None
        assert [(i.key, i.value) for i in results[2]] == [("key1", {"data": "value1"})]  # type: ignore[union-attr]
        assert results[3] == [("test", "bar"), ("test", "foo")]
        assert len(results[6]) == 1  # type: ignore[arg-type]
        assert results[7] == [("test", "bar")]


async def test_basic_ops_and_values_exactly(make_caller: MakeCaller, make_store: MakeStore) -> None:
    store = make_store(await make_caller())
    namespace = ("test", "documents")
    value = {
        "title": "Test Document", "n": 3, "x": 0.1, "big": 2**62, "none": None, "yes": True,
        "nested": {"list": [1, "two", {"3": [None, False]}], "empty": {}},
        "text": "é 中文 😀 \n\t trailing  ",
    }  # fmt: skip
    store.put(namespace, "doc1", value)
    item = store.get(namespace, "doc1")
    assert item is not None and item.value == value and item.namespace == namespace and item.key == "doc1"
    assert store.get(("test", "other_documents"), "doc1") is None
    store.put(namespace, "doc1", {"title": "Updated"})
    updated = store.get(namespace, "doc1")
    assert updated is not None and updated.value == {"title": "Updated"}
    assert updated.updated_at > item.updated_at and updated.created_at == item.created_at
    store.delete(namespace, "doc1")
    assert store.get(namespace, "doc1") is None
    store.delete(namespace, "doc1")  # deleting what is gone changes nothing, as LangGraph's stores
    store.put(namespace, "doc1", value)  # and the key can be used again
    assert (await store.aget(namespace, "doc1")).value == value  # type: ignore[union-attr]
    store.put(("keys",), "a/b?c#d %e", {"v": 1})  # a key is any string
    assert store.get(("keys",), "a/b?c#d %e").value == {"v": 1}  # type: ignore[union-attr]


async def test_search_without_query_as_in_memory(make_caller: MakeCaller, make_store: MakeStore) -> None:
    stores = both(make_store(await make_caller()))
    data = [
        (("test", "docs"), "doc1", {"title": "First Doc", "author": "Alice", "tags": ["important"], "n": 1}),
        (("test", "docs"), "doc2", {"title": "Second Doc", "author": "Bob", "tags": ["draft"], "n": 2}),
        (("test", "images"), "img1", {"title": "Image 1", "author": "Alice", "tags": ["final"], "n": 3}),
        (("user_1",), "k", {"v": 1}), (("user_1", "child"), "k", {"v": 1}), (("userX1",), "k", {"v": 1}),
        (("a%b",), "k", {"v": 1}), (("axxb",), "k", {"v": 1}), (("foo2",), "k", {"v": 1}),
    ]  # fmt: skip
    for store in stores:
        for namespace, key, value in data:
            store.put(namespace, key, value)

    def keys(found: list[Any]) -> set[tuple[tuple[str, ...], str]]:
        return {(item.namespace, item.key) for item in found}

    for prefix, options in [
        (("test",), {}), (("test", "docs"), {}), (("test",), {"filter": {"author": "Alice"}}),
        (("test",), {"filter": {"n": {"$gte": 2}, "author": "Alice"}}),
        (("test",), {"filter": {"tags": ["draft"]}}),
        (("test",), {"filter": {"n": {"$ne": 2}}}), (("test",), {"filter": {"missing": {"$gt": 1}}}),
        (("user_1",), {}), (("a%b",), {}), (("fo",), {}), ((), {"limit": 100}),
    ]:  # fmt: skip
        if "missing" in str(options):  # LangGraph's in-memory store raises here; Postgres finds none
            assert stores[0].search(prefix, **options) == []
            continue
        found = [store.search(prefix, **options) for store in stores]
        assert keys(found[0]) == keys(found[1]), (prefix, options)
    assert len(stores[0].search(("test",), limit=2)) == 2
    assert len(stores[0].search(("test",), offset=2)) == 1


async def test_a_filter_that_drops_hits_pages_correctly(
    make_caller: MakeCaller, make_store: MakeStore
) -> None:
    store = make_store(await make_caller(), index={"fields": ["text"]})
    memory = InMemoryStore()
    for i in range(36):
        value = {
            "text": f"Note {i} about the deployment pipeline",
            "kind": "keep" if i % 3 == 0 else "drop",
            "i": i,
        }
        for each in (store, memory):
            each.put(("pages",), f"k{i:02d}", value)
    kept = {f"k{i:02d}" for i in range(0, 36, 3)}
    for query in (None, "deployment pipeline"):
        pages = [
            store.search(("pages",), query=query, filter={"kind": "keep"}, limit=5, offset=o)
            for o in (0, 5, 10)
        ]
        assert [len(page) for page in pages] == [5, 5, 2]
        assert {item.key for page in pages for item in page} == kept
    wide = store.search(("pages",), query="deployment", filter={"i": {"$lt": 30}}, limit=100)
    assert {item.key for item in wide} == {
        item.key for item in memory.search(("pages",), filter={"i": {"$lt": 30}}, limit=100)
    }


# --- by meaning (test_store.py: test_vector_*, test_embed_with_path, test_non_ascii) ---------
async def test_query_ranks_by_meaning(make_caller: MakeCaller, make_store: MakeStore) -> None:
    store = make_store(await make_caller())
    store.put(("test",), "doc1", {"text": "zany zebra Xerxes"})
    store.put(("test",), "doc2", {"text": "something about dogs"})
    store.put(("test",), "doc3", {"text": "text about birds"})
    first = store.search(("test",), query="Zany Xerxes")
    assert first[0].key == "doc1" and first[0].score is not None
    store.put(("test",), "doc1", {"text": "new text about dogs"})
    after = next(r.score for r in store.search(("test",), query="Zany Xerxes") if r.key == "doc1")
    assert after is not None and after < first[0].score
    # Not indexed: found by a listing, and after every ranked item by a query, without a score.
    await store.aput(("test",), "doc4", {"text": "new text about dogs"}, index=False)
    assert not any(r.key == "doc4" for r in store.search(("test",), query="new text about dogs", limit=3))
    every = store.search(("test",), query="new text about dogs", limit=10)
    assert every[-1].key == "doc4" and every[-1].score is None and len(every) == 4
    apples = [
        ("doc1", {"text": "red apple", "color": "red", "score": 4.5}),
        ("doc2", {"text": "red car", "color": "red", "score": 3.0}),
        ("doc3", {"text": "green apple", "color": "green", "score": 4.0}),
        ("doc4", {"text": "blue car", "color": "blue", "score": 3.5}),
    ]
    for key, value in apples:
        await store.aput(("fruit",), key, value)
    found = await store.asearch(("fruit",), query="apple", filter={"color": "red"})
    assert [r.key for r in found] == ["doc1", "doc2"]
    assert (await store.asearch(("fruit",), query="car", filter={"color": "red"}))[0].key == "doc2"
    assert len(await store.asearch(("fruit",), query="bbbbluuu", filter={"score": {"$gt": 3.2}})) == 3
    assert [
        r.key
        for r in store.search(("fruit",), query="apple", filter={"score": {"$gte": 4.0}, "color": "green"})
    ] == ["doc3"]
    page1, page2 = (
        store.search(("fruit",), query="car", limit=2),
        store.search(("fruit",), query="car", limit=2, offset=2),
    )
    assert len(page1) == len(page2) == 2 and {r.key for r in page1}.isdisjoint(r.key for r in page2)
    for query in ("", None, "test " * 100, "test!@#$%^&*()"):
        assert len(store.search(("fruit",), query=query)) == 4


async def test_index_fields_choose_what_is_searched(make_caller: MakeCaller, make_store: MakeStore) -> None:
    store = make_store(await make_caller(), index={"fields": ["key17"]})
    store.put(("test",), "doc3", {"key0": "the lighthouse keeper's logbook", "key1": "x"}, index=["key0"])
    store.put(("test",), "doc4", {"key0": "a recipe for lemon tart", "key3": "x"}, index=["key0", "key3"])
    store.put(("test",), "doc5", {"key0": "nothing at the default path"})  # key17 absent: not indexed
    assert store.search(("test",), query="lighthouse logbook")[0].key == "doc3"
    assert store.search(("test",), query="lemon dessert")[0].key == "doc4"
    last = store.search(("test",), query="lemon dessert")[-1]
    assert last.key == "doc5" and last.score is None
    for i, text in enumerate(
        ["这是中文", "これは日本語です", "이건 한국어야", "Это русский", "यह रूसी है"], start=1
    ):
        store.put(("user_123", "memories"), str(i), {"text": text}, index=["text"])
    for i, text in enumerate(
        ["这是中文", "これは日本語です", "이건 한국어야", "Это русский", "यह रूसी है"], start=1
    ):
        assert store.search(("user_123", "memories"), query=text)[0].key == str(i)


# --- what this service adds -------------------------------------------------------------------
async def test_another_user_sees_nothing(make_caller: MakeCaller, make_store: MakeStore) -> None:
    alice, mallory = make_store(await make_caller()), make_store(await make_caller())
    alice.put(("shared", "name"), "k", {"secret": "alice's"})
    assert mallory.get(("shared", "name"), "k") is None
    assert mallory.search(("shared",)) == [] and mallory.search(("shared",), query="secret") == []
    assert mallory.list_namespaces() == []
    mallory.put(("shared", "name"), "k", {"secret": "mallory's"})  # the same id is another note
    assert alice.get(("shared", "name"), "k").value == {"secret": "alice's"}  # type: ignore[union-attr]


async def test_callers_of_one_user_at_once(make_caller: MakeCaller, make_store: MakeStore) -> None:
    person = await make_caller()
    agents = [
        make_store(await make_caller(Role.AGENT, agent_id=f"a{i}", user_id=person.user_id)) for i in range(4)
    ]
    values = [{"writer": i, "text": "Dana's standup is at 9:30 every weekday."} for i in range(4)]
    threads = [
        threading.Thread(target=lambda s=s, v=v: s.put(("team",), "standup", v))
        for s, v in zip(agents, values, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert agents[0].get(("team",), "standup").value in values  # type: ignore[union-attr]  # one whole value
    # Twins under other keys, at once: every one kept, none folded into another.
    await asyncio.gather(*(s.aput(("team",), f"twin{i}", values[0]) for i, s in enumerate(agents)))
    assert {r.key for r in agents[1].search(("team",), limit=10)} == {
        "standup",
        "twin0",
        "twin1",
        "twin2",
        "twin3",
    }
    assert {r.key for r in agents[2].search(("team",), query="standup", limit=10)} >= {"twin0", "twin3"}


async def test_a_persons_word_holds_against_a_put(make_caller: MakeCaller, make_store: MakeStore) -> None:
    person = await make_caller()
    agent_key = await make_caller(Role.AGENT, agent_id="planner", user_id=person.user_id)
    store = make_store(agent_key)
    store.put(("prefs",), "coffee", {"text": "Takes coffee with milk"})
    nid = note_id(("prefs",), "coffee")
    fixed = {"namespace": ["prefs"], "key": "coffee", "value": {"text": "Takes coffee black"}}
    answer = await person.http.patch(
        f"/v1/knowledge/{nid}", json={"data": fixed, "content": "Takes coffee black"}
    )
    assert answer.status_code == 200, answer.text
    assert store.get(("prefs",), "coffee").value == {"text": "Takes coffee black"}  # type: ignore[union-attr]
    with pytest.raises(ItemProposed) as held:
        store.put(("prefs",), "coffee", {"text": "Takes coffee with milk"})
    assert held.value.key == "coffee" and held.value.status == 202 and held.value.proposal["id"]
    with pytest.raises(ItemProposed):
        await store.adelete(("prefs",), "coffee")
    assert store.get(("prefs",), "coffee").value == {"text": "Takes coffee black"}  # type: ignore[union-attr]
    warned = make_store(agent_key, on_proposal="warn")
    with pytest.warns(ItemProposedWarning, match="prefs/coffee waits as proposal"):
        warned.batch(
            [PutOp(("prefs",), "coffee", {"text": "milk"}), PutOp(("prefs",), "tea", {"text": "green"})]
        )
    assert warned.get(("prefs",), "tea").value == {"text": "green"}  # type: ignore[union-attr]  # the rest applied
    inbox = (await person.http.get("/v1/proposals", params={"status": "pending"})).json()["items"]
    assert {p["targetId"] for p in inbox} >= {nid}


class State(TypedDict):
    user: str
    said: str
    answer: str


async def test_a_graph_reads_and_writes_memory(make_caller: MakeCaller, make_store: MakeStore) -> None:
    person = await make_caller()
    store = make_store(await make_caller(Role.AGENT, agent_id="graph-bot", user_id=person.user_id))

    def remember(state: State, *, store: BaseStore) -> dict[str, str]:
        namespace = ("memories", state["user"])
        store.put(namespace, str(len(store.search(namespace))), {"text": state["said"]})
        recalled = store.search(namespace, query="what drink do they like?", limit=1)
        return {"answer": recalled[0].value["text"]}

    graph = StateGraph(State).add_node("remember", remember).add_edge(START, "remember").compile(store=store)
    config = {"configurable": {"thread_id": f"t-{uuid.uuid4().hex[:8]}"}}
    first = graph.invoke({"user": "u1", "said": "I like green tea", "answer": ""}, config)  # type: ignore[arg-type]
    assert first["answer"] == "I like green tea"
    await graph.ainvoke({"user": "u1", "said": "My cat is called Miso", "answer": ""}, config)  # type: ignore[arg-type]
    assert [ns for ns in store.list_namespaces(prefix=("memories",))] == [("memories", "u1")]
    # The journal names the agent and the thread's session for each write.
    thread = config["configurable"]["thread_id"]
    journal = (
        await person.http.get("/v1/mutations", params={"targetId": note_id(("memories", "u1"), "1")})
    ).json()
    actor = journal["items"][0]["actor"]
    assert actor["agentId"] == "graph-bot" and actor["sessionId"] == f"langgraph:{thread}"


async def test_the_documented_example_runs(
    make_caller: MakeCaller, api: ApiProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    person = await make_caller()
    agent = await make_caller(Role.AGENT, agent_id="assistant", user_id=person.user_id)
    monkeypatch.setenv("CTXNET_API_URL", api.base_url)
    monkeypatch.setenv("CTXNET_API_KEY", agent.key)
    scope: dict[str, Any] = {"__name__": "example"}
    await asyncio.to_thread(exec, compile(LANGGRAPH_EXAMPLE, "docs/integrations.md", "exec"), scope)  # noqa: S102
    assert scope["out"]["answer"] == "Sam drinks green tea"
    await scope["store"].aclose()
    [note] = (await person.http.get("/v1/knowledge", params={"tag": "lg:memories/sam"})).json()["items"]
    assert note["data"]["value"] == {"text": "Sam drinks green tea", "kind": "preference"}
