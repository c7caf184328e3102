"""A private Neo4j's schema against what this build expects: start-up refused (with how to
re-embed) on a vector index of another size or vectors of another model, migrate rebuilding
an index whose settings changed from the stored data, an old index definition reported, and
replicas that start together applying the schema side by side. (Named to run before
``test_runtime_recovery.py`` on the private Neo4j they share: they begin from its empty
store, as they did when they were one module.)"""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np
import pytest

from ctxnet.neo4j_server import LocalNeo4j
from graph.core.db import Database
from graph.core.embeddings import MINILM, LocalEmbedder
from graph.core.errors import SchemaMismatch
from graph.core.schema import check_schema, migrate, reembed
from graph.core.settings import Settings
from tests.integration.core.conftest import private_api_env
from tests.support.servers import ApiProcess


async def test_vector_index_of_another_size_stops_start_up_until_reembedded(
    private_db: Database, private_settings: Settings, tmp_path: Path
) -> None:
    # A database whose vectors came from an 8-dimensional embedder.
    await migrate(private_db, 8)
    with pytest.raises(SchemaMismatch, match="ctxnet db reembed"):
        await migrate(private_db, 384)

    api = ApiProcess(tmp_path / "api.log", private_api_env(private_settings)).start()
    assert api.exit_code(timeout=90) != 0
    assert "ctxnet db reembed" in api.log()

    # Re-embedding resizes the indexes and recomputes the old vectors; then the schema fits again.
    from neo4j import GraphDatabase

    auth = (private_settings.neo4j_user, private_settings.resolved_neo4j_password() or "")
    with GraphDatabase.driver(private_settings.resolved_neo4j_uri, auth=auth) as driver:
        driver.execute_query(
            "CREATE (:Knowledge {userId: 'old', id: 'k', title: 'Old note', content: 'From the 8-dim days.', "
            "status: 'active', embedding: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8], "
            "embeddingModel: 'old-8'}), "
            "(:Insight {userId: 'old', key: 'x', id: 'i', content: 'An old insight.', "
            "embedding: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8], embeddingModel: 'old-8'}), "
            "(:AgentDoc {userId: 'old', agentId: 'a', id: 'a:capability:0', kind: 'capability', "
            "text: 'Old skill.', embedding: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8], "
            "embeddingModel: 'old-8'}), "
            # a thread from before gists: none yet, and reembed makes it
            "(:Thread {userId: 'old', id: 't', topic: 'Old thread', messageCount: 1}), "
            "(:Message {userId: 'old', id: 'm', threadId: 't', seq: 1, role: 'user', content: 'Hello.'}), "
            "(:Thread {userId: 'old', id: 't2', topic: 'Moving the billing database to PostgreSQL 16 "
            "before the pricing launch', messageCount: 0})"
        )
    embedder = LocalEmbedder()
    assert await reembed(private_db, embedder) == 5
    # The second model of decisions' notices makes the thread's own vector of its gist, and
    # only that (everything else is the embedder's already).
    minilm = LocalEmbedder(MINILM)
    assert await reembed(private_db, embedder, second=minilm) == 2
    with GraphDatabase.driver(private_settings.resolved_neo4j_uri, auth=auth) as driver:
        threads = driver.execute_query(
            "MATCH (t:Thread {userId: 'old'}) RETURN t.id AS id, t.embedding AS first, "
            "t.notifyEmbedding AS second, t.notifyModel AS model ORDER BY id"
        ).records
    assert [(len(t["second"]), t["model"]) for t in threads] == [(384, MINILM.model_id)] * 2
    # Each gist embedded alone, as the service embeds it: the very vector the service would
    # store (a batch of two would move each a little; stored as 32-bit floats).
    gists = ["Old thread\nHello.", "Moving the billing database to PostgreSQL 16 before the pricing launch"]
    for thread, gist in zip(threads, gists, strict=True):
        for stored, model in ((thread["first"], embedder), (thread["second"], minilm)):
            [alone] = await model.embed([gist])
            assert stored == np.array(alone, dtype=np.float32).tolist(), (thread["id"], model.model_id)
    with GraphDatabase.driver(private_settings.resolved_neo4j_uri, auth=auth) as driver:
        sizes, _, _ = driver.execute_query(
            "MATCH (n) WHERE n.userId = 'old' AND n.embedding IS NOT NULL RETURN labels(n)[0] AS label, "
            "size(n.embedding) AS size, n.embeddingModel AS model, n.embeddedSeq AS seq ORDER BY label, seq"
        )
        driver.execute_query("MATCH (n) WHERE n.userId = 'old' DETACH DELETE n")
    assert [(r["label"], r["size"], r["model"], r["seq"]) for r in sizes] == [
        ("AgentDoc", 384, embedder.model_id, None),
        ("Insight", 384, embedder.model_id, None),
        ("Knowledge", 384, embedder.model_id, None),
        ("Thread", 384, embedder.model_id, 0),  # its topic alone
        ("Thread", 384, embedder.model_id, 1),  # its gist holds its one message
    ]
    report = await check_schema(private_db, 384)
    assert report.ok, report.problems
    assert report.vector_dimensions == {
        "knowledge_embedding": 384, "insight_embedding": 384, "thread_topic_embedding": 384,
    }  # fmt: skip


async def test_a_database_another_model_embedded_stops_start_up_until_reembedded(
    private_db: Database, private_settings: Settings, tmp_path: Path
) -> None:
    """Vectors of all-MiniLM-L6-v2 under the default bge-small: the API will not start (the two
    models' vectors mean nothing to each other), and names what it found and the way out;
    `ctxnet db reembed`, stopped part-way and run again, moves every kind of stored vector."""
    await migrate(private_db, 384)
    minilm = LocalEmbedder(MINILM)
    texts = {
        "k1": "Alpha\nThe billing service depends on the auth service.",
        "k2": "Beta\nWe deploy on Fridays only after the load test.",
        "i": "The user prefers short answers.",
        "w": "The cache\nWe chose a cache.\nUse Redis.\nRedis needs a password.",
        "c": "Gamma\nThe old, corrected claim.",
    }
    old = dict(zip(texts, minilm.embed_sync(list(texts.values())), strict=True))
    from neo4j import GraphDatabase

    auth = (private_settings.neo4j_user, private_settings.resolved_neo4j_password() or "")
    with GraphDatabase.driver(private_settings.resolved_neo4j_uri, auth=auth) as driver:
        driver.execute_query(
            "UNWIND ['k1', 'k2'] AS id "
            "CREATE (n:Knowledge {userId: 'moved', id: id, title: split($texts[id], '\n')[0], "
            "content: split($texts[id], '\n')[1], status: 'active', embedding: $old[id], "
            "embeddingModel: $model}) "
            "WITH count(*) AS made "
            "CREATE (:Insight {userId: 'moved', key: 'i', id: 'i', content: $texts.i, embedding: $old.i, "
            "embeddingModel: $model}), "
            "(:WikiPage {userId: 'moved', slug: 'w', title: 'The cache', summary: 'We chose a cache.', "
            "decisions: ['Use Redis.'], learnings: ['Redis needs a password.'], embedding: $old.w, "
            "embeddingModel: $model}), "
            "(:Correction {userId: 'moved', id: 'c', embeddedText: $texts.c, embedding: $old.c, "
            "embeddingModel: $model})",
            texts=texts, old=old, model=minilm.model_id,
        )  # fmt: skip
    try:
        api = ApiProcess(tmp_path / "api.log", private_api_env(private_settings)).start()
        assert api.exit_code(timeout=90) != 0
        for said in ("2 notes by all-MiniLM-L6-v2-onnx-int8", "1 insights", "1 saved pages", "1 corrections",
                     "ctxnet db reembed", "CTXNET_LOCAL_MODEL"):  # fmt: skip
            assert said in api.log(), api.log()
        # An operator may serve meanwhile, warned, e.g. while a large database is moved.
        anyway = ApiProcess(
            tmp_path / "api-anyway.log",
            private_api_env(private_settings, CTXNET_SERVE_FOREIGN_VECTORS="true"),
        )
        try:
            anyway.start().wait_ready()
            assert "serving anyway" in anyway.log()
        finally:
            anyway.stop()

        bge = LocalEmbedder()

        class Killed(Exception):
            pass

        def stop_after_first_page(done: int) -> None:
            raise Killed  # stopped part-way, after its first page of vectors was stored

        with pytest.raises(Killed):
            await reembed(private_db, bge, batch_size=1, progress=stop_after_first_page)
        assert await reembed(private_db, bge, batch_size=2) == 4  # the first page is not done again
        with GraphDatabase.driver(private_settings.resolved_neo4j_uri, auth=auth) as driver:
            rows, _, _ = driver.execute_query(
                "MATCH (n {userId: 'moved'}) RETURN coalesce(n.id, n.slug) AS key, n.embedding AS vector, "
                "n.embeddingModel AS model"
            )
        assert {r["key"] for r in rows} == set(texts)
        for r in rows:
            assert r["model"] == bge.model_id
            [fresh] = bge.embed_sync([texts[r["key"]]])
            assert float(np.dot(fresh, r["vector"])) > 0.99, r["key"]
        api = ApiProcess(tmp_path / "api-again.log", private_api_env(private_settings)).start()
        try:
            api.wait_ready()
        finally:
            api.stop()
    finally:
        with GraphDatabase.driver(private_settings.resolved_neo4j_uri, auth=auth) as driver:
            driver.execute_query("MATCH (n {userId: 'moved'}) DETACH DELETE n")


async def test_migrate_rebuilds_the_fulltext_index_when_its_analyzer_changes(
    private_db: Database, private_settings: Settings
) -> None:
    """The index as an older build made it (Neo4j's default analyzer, no stemming): migrate
    rebuilds it with the english analyzer from the stored notes, which then match by stem."""
    from neo4j import GraphDatabase

    await migrate(private_db, 384)
    auth = (private_settings.neo4j_user, private_settings.resolved_neo4j_password() or "")
    with GraphDatabase.driver(private_settings.resolved_neo4j_uri, auth=auth) as driver:
        driver.execute_query("DROP INDEX knowledge_fulltext")
        driver.execute_query(
            "CREATE FULLTEXT INDEX knowledge_fulltext FOR (n:Knowledge) "
            "ON EACH [n.title, n.content, n.tenantKey]"
        )
        driver.execute_query(
            "CREATE (:Knowledge {userId: 'analyzer-user', id: 'kept', status: 'active', "
            "title: 'Deployments', content: 'We deployed the billing services on Tuesday.', "
            "tenantKey: 'tanalyzer'})"
        )
        driver.execute_query("CALL db.awaitIndexes(300)")
    query = (
        "CALL db.index.fulltext.queryNodes('knowledge_fulltext', 'content:(deploy service)') "
        "YIELD node RETURN node.id AS id"
    )

    try:
        stale = await check_schema(private_db, 384)
        assert stale.stale_settings == ["knowledge_fulltext"]
        assert any(
            "fulltext.analyzer='standard-no-stop-words' (wanted 'english')" in p for p in stale.problems
        )
        with GraphDatabase.driver(private_settings.resolved_neo4j_uri, auth=auth) as driver:
            before, _, _ = driver.execute_query(query)
        assert before == []  # no stemming: "deployed" is not "deploy"

        await migrate(private_db, 384)
        with GraphDatabase.driver(private_settings.resolved_neo4j_uri, auth=auth) as driver:
            driver.execute_query("CALL db.awaitIndexes(300)")
            after, _, _ = driver.execute_query(query)
        assert [r["id"] for r in after] == ["kept"]
        assert (await check_schema(private_db, 384)).ok
    finally:
        with GraphDatabase.driver(private_settings.resolved_neo4j_uri, auth=auth) as driver:
            driver.execute_query("MATCH (n:Knowledge {userId: 'analyzer-user'}) DETACH DELETE n")


async def test_migrate_rebuilds_a_vector_index_with_old_settings_from_the_stored_vectors(
    private_db: Database, private_settings: Settings
) -> None:
    from neo4j import GraphDatabase

    await migrate(private_db, 384)
    auth = (private_settings.neo4j_user, private_settings.resolved_neo4j_password() or "")
    vector = [1.0] + [0.0] * 383
    with GraphDatabase.driver(private_settings.resolved_neo4j_uri, auth=auth) as driver:
        # The index as another build made it: int8-quantized, a narrower HNSW build beam;
        # one note already stored.
        driver.execute_query("DROP INDEX knowledge_embedding")
        driver.execute_query(
            "CREATE VECTOR INDEX knowledge_embedding FOR (n:Knowledge) ON n.embedding OPTIONS {indexConfig: "
            "{`vector.dimensions`: 384, `vector.similarity_function`: 'cosine', "
            "`vector.quantization.enabled`: true, `vector.hnsw.ef_construction`: 48}}"
        )
        driver.execute_query(
            "CREATE (n:Knowledge {userId: 'settings-user', id: 'kept', status: 'active'}) "
            "WITH n CALL db.create.setNodeVectorProperty(n, 'embedding', $vector)",
            vector=vector,
        )
        driver.execute_query("CALL db.awaitIndexes(300)")

    stale = await check_schema(private_db, 384)
    assert stale.stale_settings == ["knowledge_embedding"]
    assert any("vector.quantization.enabled=True (wanted False)" in p for p in stale.problems)
    assert any("vector.hnsw.ef_construction=48 (wanted 100)" in p for p in stale.problems)

    await migrate(private_db, 384)
    with GraphDatabase.driver(private_settings.resolved_neo4j_uri, auth=auth) as driver:
        driver.execute_query("CALL db.awaitIndexes(300)")
        [index], _, _ = driver.execute_query(
            "SHOW VECTOR INDEXES YIELD name, options WHERE name = 'knowledge_embedding' RETURN options"
        )
        hits, _, _ = driver.execute_query(
            "CALL db.index.vector.queryNodes('knowledge_embedding', 5, $vector) YIELD node, score "
            "WHERE node.userId = 'settings-user' RETURN node.id AS id, score",
            vector=vector,
        )
        driver.execute_query("MATCH (n:Knowledge {userId: 'settings-user'}) DETACH DELETE n")
    assert index["options"]["indexConfig"]["vector.quantization.enabled"] is False
    assert index["options"]["indexConfig"]["vector.hnsw.ef_construction"] == 100
    # Rebuilt from the vector the note kept, and scored exactly (cosine 1 -> Neo4j score 1).
    assert [(h["id"], round(h["score"], 6)) for h in hits] == [("kept", 1.0)]
    assert (await check_schema(private_db, 384)).ok


async def test_an_index_with_an_old_definition_is_reported(
    private_db: Database, private_neo4j: LocalNeo4j, private_settings: Settings
) -> None:
    from neo4j import GraphDatabase

    await migrate(private_db, 384)
    auth = (private_settings.neo4j_user, private_settings.resolved_neo4j_password() or "")
    with GraphDatabase.driver(private_neo4j.bolt_url, auth=auth) as driver:
        driver.execute_query("DROP INDEX knowledge_fulltext")
        driver.execute_query(
            "CREATE FULLTEXT INDEX knowledge_fulltext FOR (n:Knowledge) ON EACH [n.title, n.content]"
        )
    report = await check_schema(private_db, 384)
    assert any("knowledge_fulltext covers ['title', 'content']" in p for p in report.problems), (
        report.problems
    )
    await private_db.run_autocommit("queries/core/schema_drop_index", name="knowledge_fulltext")
    await migrate(private_db, 384)
    assert (await check_schema(private_db, 384)).ok


async def test_replicas_starting_together_apply_the_schema_side_by_side(private_db: Database) -> None:
    from graph.core.schema import apply_schema

    dimension = 384
    for index in ("knowledge_user", "thread_user_updated", "job_user", "merged_note_user"):
        await private_db.run_autocommit("queries/core/schema_drop_index", name=index)
    # Four processes' worth of migrations at once: each finds some indexes created by another.
    await asyncio.gather(*(apply_schema(private_db, dimension) for _ in range(4)))
    report = await check_schema(private_db, dimension)
    assert report.ok, report.problems
