"""An OpenAI-compatible ``/embeddings`` endpoint (OpenAI, Ollama, vLLM, ...) as an embedder,
and the retry rule every call of ours to such an endpoint follows (the LLM extractor's too).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import openai
from tenacity import (
    AsyncRetrying,
    before_sleep_log,
    retry_if_exception,
    stop_after_attempt,
    wait_random_exponential,
)

from graph.core.errors import EmbeddingError

log = logging.getLogger(__name__)

Vector = list[float]


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
        """Embed in batches of ``batch_size``; a text given more than once is sent once."""
        once = list(dict.fromkeys(texts))
        vectors: list[Vector] = []
        for start in range(0, len(once), self._batch_size):
            vectors.extend(await self._embed_batch(once[start : start + self._batch_size]))
        found = dict(zip(once, vectors, strict=True))
        return [list(found[text]) for text in texts]

    async def close(self) -> None:
        """Close the HTTP client."""
        await self._client.close()
