"""What the schema files declare, as ``check_schema`` and ``migrate`` read it."""

from __future__ import annotations

from graph.core.schema import expected_schema


def test_vector_indexes_declare_full_precision_and_the_hnsw_build() -> None:
    vector = {o.name: o for o in expected_schema() if o.index_type == "VECTOR"}
    assert set(vector) == {"knowledge_embedding", "insight_embedding", "thread_topic_embedding"}
    for index in vector.values():
        assert dict(index.settings) == {
            "vector.similarity_function": "cosine",
            "vector.quantization.enabled": False,
            "vector.hnsw.m": 16,
            "vector.hnsw.ef_construction": 100,
        }, index.name


def test_the_fulltext_indexes_declare_the_english_analyzer() -> None:
    fulltext = {o.name: dict(o.settings) for o in expected_schema() if o.index_type == "FULLTEXT"}
    assert fulltext == {
        "knowledge_fulltext": {"fulltext.analyzer": "english"},
        "insight_fulltext": {"fulltext.analyzer": "english"},
    }


def test_other_indexes_declare_no_settings() -> None:
    assert all(o.settings == () for o in expected_schema() if o.index_type not in {"VECTOR", "FULLTEXT"})
