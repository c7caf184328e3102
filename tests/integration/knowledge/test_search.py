"""Search modes, filters, graph-aware expansion and isolation, over real HTTP."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from graph.core.db import Database
from graph.core.tenancy import tenant_key
from graph.core.users import find_orphans
from graph.knowledge.search import RUNAWAY
from tests.integration.conftest import MakeCaller
from tests.integration.knowledge.seeding import link, note, seed


async def test_search_modes_and_filters(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    await seed(
        alice,
        note(
            "pw",
            "Password reset",
            "To reset a forgotten password, open settings and choose reset.",
            "procedure",
            tags=["account"],
            confidence=0.9,
        ),
        note(
            "flour",
            "Pancake recipe",
            "Mix two cups of flour with milk and one egg.",
            "fact",
            tags=["cooking"],
            confidence=0.5,
        ),
        note(
            "zebra", "Zebrafish", "The lab keeps zebrafish for genetics experiments.", "fact", confidence=0.3
        ),
    )
    vector = await alice.http.post(
        "/v1/search", json={"query": "how can I change my login credentials?", "mode": "vector", "topK": 1}
    )
    assert vector.json()["hits"][0]["node"]["id"] == "pw"
    assert vector.json()["hits"][0]["score"] > 0.3

    text = await alice.http.post("/v1/search", json={"query": "zebrafish", "mode": "fulltext"})
    assert [h["node"]["id"] for h in text.json()["hits"]] == ["zebra"]

    hybrid = await alice.http.post("/v1/search", json={"query": "flour egg pancake", "topK": 3})
    hits = hybrid.json()["hits"]
    assert hits[0]["node"]["id"] == "flour"
    assert "vectorScore" in hits[0] and "textScore" in hits[0]
    # Hybrid is a convex combination of the halves' scores, each scaled to 0..1 between the
    # last and the best of its ranking (here every note the half finds), half each; the best
    # counts at most RUNAWAY times the runner-up's margin over the last.
    halves = {
        mode: [
            (h["node"]["id"], h["score"])
            for h in (
                await alice.http.post(
                    "/v1/search", json={"query": "flour egg pancake", "mode": mode, "topK": 20}
                )
            ).json()["hits"]
        ]
        for mode in ("vector", "fulltext")
    }
    fused: dict[str, float] = {}
    for ranking in halves.values():
        best, last = ranking[0][1], ranking[-1][1]
        if len(ranking) > 2:
            best = min(best, last + RUNAWAY * (ranking[1][1] - last))
        for node_id, score in ranking:
            fused[node_id] = fused.get(node_id, 0.0) + 0.5 * (
                min(1.0, (score - last) / (best - last)) if best > last else 1.0
            )
    expected = sorted(fused.items(), key=lambda item: (-item[1], item[0]))[:3]
    assert [(h["node"]["id"], round(h["score"], 6)) for h in hits] == [(k, round(v, 6)) for k, v in expected]

    def ids(response: Any) -> set[str]:
        return {h["node"]["id"] for h in response.json()["hits"]}

    base = {"query": "notes", "topK": 10, "mode": "vector"}
    assert ids(await alice.http.post("/v1/search", json={**base, "filters": {"types": ["procedure"]}})) == {
        "pw"
    }
    assert ids(await alice.http.post("/v1/search", json={**base, "filters": {"tags": ["cooking"]}})) == {
        "flour"
    }
    assert ids(await alice.http.post("/v1/search", json={**base, "filters": {"minConfidence": 0.5}})) == {
        "pw",
        "flour",
    }
    assert (
        ids(
            await alice.http.post(
                "/v1/search", json={**base, "filters": {"createdAfter": "2999-01-01T00:00:00Z"}}
            )
        )
        == set()
    )

    for bad in (
        {"query": "x", "topK": 0},
        {"query": "x", "topK": 101},
        {"query": "x", "mode": "magic"},
        {"query": ""},
        {"query": "x", "maxDepth": 4},
    ):
        response = await alice.http.post("/v1/search", json=bad)
        assert response.status_code == 422, bad


async def test_keyword_search_matches_word_forms_and_ignores_stop_words(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    await seed(
        alice,
        note("deploys", "Deployments", "We deployed the billing services on Tuesday.", "fact"),
        note("other", "The cache", "It is a cache of the sessions.", "fact"),
    )

    async def fulltext(query: str) -> list[str]:
        answer = await alice.http.post("/v1/search", json={"query": query, "mode": "fulltext", "topK": 5})
        assert answer.status_code == 200, answer.text
        return [h["node"]["id"] for h in answer.json()["hits"]]

    # The english analyzer: "deploy" finds "deployed", "service" finds "services".
    assert await fulltext("deploy service") == ["deploys"]
    assert await fulltext("session caching") == ["other"]
    # Only stop words, or only tokens the analyzer drops: no keyword hits at all, not every
    # note of the user.
    assert await fulltext("is it the one of these?") == []
    assert await fulltext("_ ½ ² ①") == []
    hybrid = await alice.http.post("/v1/search", json={"query": "the", "topK": 5})
    assert all("textScore" not in h for h in hybrid.json()["hits"])


@pytest.mark.smoke
async def test_a_note_keeps_where_it_came_from(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    made = await alice.http.post(
        "/v1/knowledge",
        json={"id": "n", "title": "Retries", "content": "Webhooks retry five times.", "type": "fact",
              "sourceRef": "docs/webhooks.md:12"},
    )  # fmt: skip
    assert made.status_code == 201, made.text
    assert made.json()["node"]["sourceRef"] == "docs/webhooks.md:12"
    assert (await alice.http.get("/v1/knowledge/n")).json()["sourceRef"] == "docs/webhooks.md:12"
    moved = await alice.http.patch("/v1/knowledge/n", json={"sourceRef": "docs/hooks.md:3"})
    assert moved.status_code == 200 and moved.json()["sourceRef"] == "docs/hooks.md:3"
    for bad in ("", "x" * 513):
        answer = await alice.http.post(
            "/v1/knowledge", json={"title": "T", "content": "C.", "type": "fact", "sourceRef": bad}
        )
        assert answer.status_code == 422 and "sourceRef" in answer.text, answer.text
    # A deleted note comes back with it on undo.
    deleted = await alice.http.delete("/v1/knowledge/n")
    assert deleted.status_code in (200, 204), deleted.text
    journal = (await alice.http.get("/v1/mutations", params={"targetId": "n"})).json()["items"]
    undo = await alice.http.post(f"/v1/mutations/{journal[0]['id']}/undo")
    assert undo.status_code in (200, 201), undo.text
    assert (await alice.http.get("/v1/knowledge/n")).json()["sourceRef"] == "docs/hooks.md:3"


async def test_expansion_returns_exactly_the_expected_subgraph(make_caller: MakeCaller) -> None:
    # a -relatedTo-> b -dependsOn-> c -relatedTo-> d ; e -conflictsWith- a ; f is unconnected.
    alice = await make_caller()
    rng = np.random.default_rng(42)
    vectors = {
        k: (v / np.linalg.norm(v)).tolist() for k, v in ((k, rng.standard_normal(384)) for k in "abcdef")
    }
    await seed(
        *[alice], *[note(k, f"Note {k}", f"Content of note {k}.", embedding=vectors[k]) for k in "abcdef"]
    )
    for source, kind, target in (
        ("a", "relatedTo", "b"),
        ("b", "dependsOn", "c"),
        ("c", "relatedTo", "d"),
        ("e", "conflictsWith", "a"),
    ):
        assert (await link(alice, source, kind, target)).status_code == 201

    async def expand(**extra: Any) -> dict[str, Any]:
        body = {"query": "x", "embedding": vectors["a"], "mode": "vector", "topK": 1, **extra}
        response = await alice.http.post("/v1/search", json=body)
        assert response.status_code == 200, response.text
        result = response.json()
        assert [h["node"]["id"] for h in result["hits"]] == ["a"]
        return {r["node"]["id"]: r["depth"] for r in result["expanded"]} | {
            "_edges": {(e["sourceId"], e["type"], e["targetId"]) for e in result["edges"]}
        }

    one = await expand()
    assert one == {"b": 1, "e": 1, "_edges": {("a", "relatedTo", "b"), ("e", "conflictsWith", "a")}}
    two = await expand(maxDepth=2)
    assert {k: v for k, v in two.items() if k != "_edges"} == {"b": 1, "e": 1, "c": 2}
    three = await expand(maxDepth=3)
    assert {k: v for k, v in three.items() if k != "_edges"} == {"b": 1, "e": 1, "c": 2, "d": 3}
    assert len(three["_edges"]) == 4
    only_related = await expand(maxDepth=3, edgeTypes=["relatedTo"])
    assert {k: v for k, v in only_related.items() if k != "_edges"} == {"b": 1}
    outgoing = await expand(maxDepth=3, direction="out")
    assert {k: v for k, v in outgoing.items() if k != "_edges"} == {"b": 1, "c": 2, "d": 3}
    incoming = await expand(maxDepth=3, direction="in")
    assert {k: v for k, v in incoming.items() if k != "_edges"} == {"e": 1}
    none = await expand(expandConnections=False)
    assert none == {"_edges": set()}

    hood = (await alice.http.get("/v1/knowledge/c/neighborhood", params={"depth": 1})).json()
    assert hood["node"]["id"] == "c"
    assert {n["node"]["id"]: n["depth"] for n in hood["nodes"]} == {"b": 1, "d": 1}
    via = {n["node"]["id"]: n["via"] for n in hood["nodes"]}
    assert via["b"][0]["type"] == "dependsOn"
    for depth, expected in ((2, {"b": 1, "d": 1, "a": 2}), (3, {"b": 1, "d": 1, "a": 2, "e": 3})):
        wider = (await alice.http.get("/v1/knowledge/c/neighborhood", params={"depth": depth})).json()
        assert {n["node"]["id"]: n["depth"] for n in wider["nodes"]} == expected
    alone = (await alice.http.get("/v1/knowledge/f/neighborhood", params={"depth": 3})).json()
    assert (alone["node"]["id"], alone["nodes"], alone["edges"]) == ("f", [], [])


async def test_users_are_invisible_to_each_other(make_caller: MakeCaller, db: Database) -> None:
    alice = await make_caller()
    mallory = await make_caller()
    await seed(
        alice,
        note("secret", "Alice's secret", "Alice keeps her launch codes under the keyboard."),
        note("plan", "Plan", "Alice plans to launch on Monday."),
    )
    await link(alice, "plan", "relatedTo", "secret")

    assert (await mallory.http.get("/v1/knowledge/secret")).status_code == 404
    assert (await mallory.http.patch("/v1/knowledge/secret", json={"title": "pwned"})).status_code == 404
    assert (await mallory.http.delete("/v1/knowledge/secret")).status_code == 404
    assert (await mallory.http.get("/v1/knowledge/secret/connections")).status_code == 404
    assert (await mallory.http.get("/v1/knowledge/secret/neighborhood")).status_code == 404
    assert (await mallory.http.delete("/v1/knowledge/plan/connections/relatedTo/secret")).status_code == 404
    assert (await mallory.http.get("/v1/knowledge")).json()["items"] == []
    for mode in ("vector", "fulltext", "hybrid"):
        found = await mallory.http.post("/v1/search", json={"query": "launch codes keyboard", "mode": mode})
        assert found.json()["hits"] == [], mode

    # Same id, different users: two separate notes; no edge can cross between them.
    await seed(mallory, note("secret", "Mallory's own", "Mallory writes her own note."))
    cross = await mallory.http.post(
        "/v1/connections/batch",
        json={"items": [{"sourceId": "secret", "type": "relatedTo", "targetId": "plan"}]},
    )
    assert cross.status_code == 404
    merged = await mallory.http.post(
        "/v1/knowledge",
        json={
            "title": "Alice's secret",
            "content": "Alice keeps her launch codes under the keyboard.",
            "type": "fact",
        },
    )
    assert merged.status_code == 201  # no dedupe into another user's note
    assert (await alice.http.get("/v1/knowledge/secret")).json()["title"] == "Alice's secret"
    assert await find_orphans(db, alice.user_id) == []


async def test_what_others_store_never_moves_a_users_keyword_ranking(
    make_caller: MakeCaller, db: Database
) -> None:
    """A user's keyword scores come from their own notes alone. Alice has "kiwi" in two
    notes and "mango" in three: kiwi is her rarer word. Mallory then stores copies of her
    notes and fifty more about kiwis, which makes kiwi the commoner word in the index as a
    whole: Lucene's own ranking of Alice's notes flips, hers does not move by a hair."""
    alice, mallory = await make_caller(), await make_caller()
    mine = [
        note("k1", "Fruit stand", "The kiwi crate arrived on Monday morning."),
        note("k2", "Smoothie", "A kiwi smoothie with oat milk and honey."),
        note("m1", "Orchard", "The mango trees near the river need water."),
        note("m2", "Dessert", "Sticky rice with mango and coconut cream."),
        note("m3", "Market", "Mango prices doubled after the storm passed."),
        note("x1", "Weather", "Rain all week, the river is high."),
    ]
    await seed(alice, *mine)

    async def searched() -> dict[str, list[tuple[str, float | None]]]:
        found = {}
        for mode in ("fulltext", "hybrid"):
            answer = await alice.http.post(
                "/v1/search", json={"query": "kiwi or mango?", "mode": mode, "topK": 10}
            )
            assert answer.status_code == 200, answer.text
            found[mode] = [(h["node"]["id"], h.get("textScore")) for h in answer.json()["hits"]]
        return found

    async def lucene_ranking() -> list[str]:
        records, _, _ = await db.driver.execute_query(
            "CALL db.index.fulltext.queryNodes('knowledge_fulltext', $q) YIELD node, score "
            "WHERE node.userId = $userId RETURN node.id AS id ORDER BY score DESC, id",
            q=f"+tenantKey:{tenant_key(alice.user_id)} +(title:(kiwi mango) content:(kiwi mango))",
            userId=alice.user_id,
            database_=db.database,
        )
        return [r["id"] for r in records]

    before, lucene_before = await searched(), await lucene_ranking()
    ranked = [node_id for node_id, _ in before["fulltext"]]
    assert set(ranked[:2]) == {"k1", "k2"} and set(ranked[2:]) == {"m1", "m2", "m3"}
    assert set(lucene_before[:2]) == {"k1", "k2"}

    copies = [{**n, "id": f"copy-{n['id']}"} for n in mine]
    kiwis = [note(f"kiwi{i}", f"Kiwi {i}", f"Kiwi number {i} of the kiwi harvest.") for i in range(50)]
    await seed(mallory, *copies, *kiwis)

    assert set((await lucene_ranking())[:3]) == {"m1", "m2", "m3"}  # Lucene's own order flipped
    assert await searched() == before  # alice's ranking and scores did not


async def test_injection_attempts_are_stored_as_text(make_caller: MakeCaller, db: Database) -> None:
    alice = await make_caller()
    bystander = await make_caller()
    await seed(bystander, note("keep", "Keep me", "This note must survive."))
    payloads = [
        "'}) MATCH (n) DETACH DELETE n //",
        '"}) WITH 1 AS x MATCH (n) SET n.userId = "evil" //',
        "`) CALL db.index.vector.queryNodes('knowledge_embedding', 10, []) //",
        "title:* OR tenantKey:*",
        "$(userId) :Knowledge {userId: 'x'}",
    ]
    for i, text in enumerate(payloads):
        response = await alice.http.post(
            "/v1/knowledge",
            json={
                "id": f"inj-{i}",
                "title": text,
                "content": text,
                "type": "fact",
                "tags": [text[:60]],
                "dedupe": False,
            },
        )
        assert response.status_code == 201, response.text
        assert response.json()["node"]["title"] == text.strip()
        for mode in ("fulltext", "hybrid", "vector"):
            found = await alice.http.post(
                "/v1/search", json={"query": text, "mode": mode, "filters": {"tags": [text[:60]]}}
            )
            assert found.status_code == 200, found.text
            # Exactly the note that holds this text: the text was searched for, not obeyed.
            hits = found.json()["hits"]
            assert [h["node"]["id"] for h in hits] == [f"inj-{i}"], (mode, text, hits)
            assert hits[0]["node"]["content"] == text.strip()
        bad_id = await alice.http.post(
            "/v1/knowledge", json={"id": text, "title": "t", "content": "c", "type": "fact"}
        )
        assert bad_id.status_code == 422
    assert (await bystander.http.get("/v1/knowledge/keep")).json()["title"] == "Keep me"
    [counts] = await db.read("queries/knowledge/note_counts", userId=bystander.user_id)
    assert counts["mine"] == 1


async def test_filters_reach_past_the_best_weighted_notes(make_caller: MakeCaller) -> None:
    """The keyword half reads the filters for the best-weighted notes first and goes further
    only when they leave too few: sixty facts hold both query words, one procedure only one;
    asked for procedures, the procedure is found below them all."""
    alice = await make_caller()
    facts = [note(f"f{i}", f"Fact {i}", f"alpha beta fact number {i}") for i in range(60)]
    await seed(alice, *facts, note("p", "Procedure", "alpha steps to follow", "procedure"))
    answer = await alice.http.post(
        "/v1/search",
        json={"query": "alpha beta", "mode": "fulltext", "topK": 5, "filters": {"types": ["procedure"]}},
    )
    assert answer.status_code == 200, answer.text
    assert [h["node"]["id"] for h in answer.json()["hits"]] == ["p"]
    everything = await alice.http.post(
        "/v1/search", json={"query": "alpha beta", "mode": "fulltext", "topK": 5}
    )
    assert {h["node"]["id"] for h in everything.json()["hits"]} <= {f"f{i}" for i in range(60)}
