"""Configuration of Context Network, read from ``CTXNET_*`` variables and ``.env``.

Nothing is read at import time: call :func:`get_settings` (cached) when a value is
needed, so tests and the CLI can set the environment first.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

#: The checkout this package lives in (an editable install); the default home of ``.data``.
PROJECT_ROOT = Path(__file__).resolve().parents[2]


class Settings(BaseSettings):
    """Every setting of the service, the CLI and the local Neo4j runtime."""

    model_config = SettingsConfigDict(
        env_prefix="CTXNET_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
    )

    # --- where local state lives -------------------------------------------------
    data_dir: Path = Field(
        default=PROJECT_ROOT / ".data",
        description="Folder for the local Neo4j (jars, data, logs) and the dev key.",
    )

    # --- connecting to Neo4j -----------------------------------------------------
    neo4j_uri: str | None = Field(
        default=None,
        description="bolt:// or neo4j:// URI; default: the local runtime's Bolt port.",
    )
    neo4j_user: str = "neo4j"
    neo4j_password: SecretStr | None = Field(
        default=None,
        description="Default: the password the local runtime generated on first start.",
    )
    neo4j_database: str = "neo4j"
    neo4j_connect_timeout_seconds: float = 3.0
    neo4j_transaction_retry_seconds: float = Field(
        default=5.0, description="How long the driver retries a transaction on transient faults."
    )
    neo4j_startup_wait_seconds: float = Field(
        default=60.0, description="How long the API waits for Neo4j at start-up before it exits."
    )

    # --- the local Neo4j runtime (ctxnet neo4j ...) ------------------------------
    neo4j_version: str = "5.26.30"
    neo4j_browser_version: str = "5.24.0"
    neo4j_bolt_port: int = Field(default=7687, ge=1, le=65535)
    neo4j_http_port: int = Field(default=7474, ge=1, le=65535)
    neo4j_heap: str = Field(default="1g", pattern=r"^\d+[kKmMgG]$")
    neo4j_pagecache: str = Field(default="512m", pattern=r"^\d+[kKmMgG]$")
    neo4j_vector_merge_factor: int = Field(
        default=10,
        ge=2,
        le=1000,
        description=(
            "Lucene merge factor of vector indexes. Neo4j's default (50) lets dozens of small HNSW "
            "segments pile up, and every search visits each one; lower merges more while writing."
        ),
    )
    neo4j_checkpoint_interval: str = Field(
        default="10s",
        pattern=r"^\d+(ms|s|m|h)$",
        description=(
            "How often Neo4j checkpoints (its own default is 15m). Index segments written since "
            "the last checkpoint are searched much more slowly (10k notes: 23 ms against 11 ms)."
        ),
    )
    neo4j_start_timeout_seconds: float = 120.0
    neo4j_dist_dir: Path | None = Field(
        default=None,
        description="Where the fetched jars live; default <data_dir>/neo4j/lib. Several homes may share one.",
    )

    # --- embeddings --------------------------------------------------------------
    embedder: Literal["local", "openai"] = "local"
    local_model: Literal["bge-small-en-v1.5", "all-MiniLM-L6-v2"] = Field(
        default="bge-small-en-v1.5",
        description="Which local model embeds (docs/retrieval.md compares them). A database embedded "
        "by one must be moved with `ctxnet db reembed` before another serves it.",
    )
    models_dir: Path | None = Field(
        default=None, description="Where fetched model files live; default <data_dir>/models."
    )
    serve_foreign_vectors: bool = Field(
        default=False,
        description="Start even though the database holds vectors another embedding model made (a "
        "warning instead of a refusal), e.g. to serve while `ctxnet db reembed` moves a large "
        "database; until it is done, the vector half of a search compares the two models' vectors.",
    )
    maven_repository: str = Field(
        default="https://repo1.maven.org/maven2",
        description="Where `ctxnet models fetch` downloads model jars that the local Maven cache lacks.",
    )
    embedding_batch_size: int = Field(default=32, ge=1, le=2048)
    embedding_threads: int = Field(
        default=1,
        ge=1,
        le=64,
        description="CPU threads of one local-embedder call. One spends the least CPU per text "
        "(concurrent requests already keep several cores busy); more lowers a lone call's latency.",
    )
    embedding_model: str = Field(
        default="text-embedding-3-small", description="Model name for the openai embedder."
    )
    embedding_base_url: str | None = Field(
        default=None, description="OpenAI-compatible base URL, e.g. http://localhost:11434/v1."
    )
    embedding_api_key: SecretStr | None = None
    embedding_dimension: int | None = Field(
        default=None, ge=1, le=4096, description="Vector size of the openai embedder (required)."
    )
    embedding_timeout_seconds: float = 30.0
    embedding_max_retries: int = Field(default=5, ge=0, le=20)

    # --- the knowledge network ---------------------------------------------------
    note_max_words: int = Field(default=300, ge=10, description="Atomic-note limit on content.")
    bridge_min_similarity: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="Cosine to the opening topic below which a note or insight is not brought into the "
        "context bridge or brief_me (a note that matches the topic's words is, whatever its cosine); "
        "default: the embedder's own (docs/retrieval.md, 'Relevance floors').",
    )
    dedupe_threshold: float | None = Field(
        default=None,
        ge=0.5,
        le=1.0,
        description="Cosine at or above which a new note updates its twin; default: the embedder's own "
        "(docs/retrieval.md, 'Dedupe thresholds').",
    )
    update_floor: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="Cosine at or above which a stored note is compared with a new one, to tell whether "
        "the new one updates it; default: the embedder's own (docs/retrieval.md, 'Updates told from "
        "siblings').",
    )
    correction_window_days: float = Field(
        default=7.0,
        gt=0,
        description="For how many days after a correction every new session is shown it "
        "(GET /v1/corrections?unacknowledged=true) until that session acknowledges it.",
    )
    # --- project context -----------------------------------------------------------
    decision_notify_min_similarity: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="Cosine between what a new architectural decision decides (title, decision, "
        "consequences, context) and a thread's gist (topic and latest messages) or one of its insights "
        "from which the thread is told of the decision whatever the user's other threads; below it, a "
        "thread is told when it stands out among them (CTXNET_DECISION_NOTIFY_STANDING); default: the "
        "embedder's own (docs/project.md, 'Which conversations hear of a decision').",
    )
    decision_notify_standing: float = Field(
        default=2.3,
        ge=0.0,
        le=10.0,
        description="How far a thread must stand out among the user's threads active within "
        "CTXNET_DECISION_NOTIFY_DAYS to be told of a new decision: its cosine to the decision in "
        "standard deviations above theirs, plus 0.3 for each rare named technology or tag it shares "
        "with the decision (at most two); lower tells more conversations "
        "(docs/project.md, 'Which conversations hear of a decision').",
    )
    decision_notify_second_model: Literal["all-MiniLM-L6-v2", ""] = Field(
        default="all-MiniLM-L6-v2",
        description="A second local model that also compares a new decision with the user's threads "
        "(its own vector of each thread's gist, beside the embedder's): a thread stands as high as the "
        "higher of the two models puts it. Empty, or the embedder's own model: the embedder alone "
        "(docs/project.md, 'Which conversations hear of a decision').",
    )
    decision_notify_max_threads: int = Field(
        default=50,
        ge=0,
        le=1000,
        description="Most threads one new decision notifies (sessions first, then those that stand "
        "out most).",
    )
    thread_gist_delay_seconds: float = Field(
        default=2.0,
        gt=0,
        description="How long after messages are appended a thread's gist (topic and latest messages, "
        "by which a new decision finds it) is embedded again, in the background.",
    )
    decision_notify_days: float = Field(
        default=30.0,
        gt=0,
        description="Threads active within this many days are the ones a new decision may notify.",
    )
    agent_context_needs_approval: bool = Field(
        default=True,
        description="A decision, pattern or constraint an agent key records waits as a proposal (202) "
        "until a person approves it, so agent-written text reaches other agents' instructions and "
        "conversations only with a person's word; false lets agents record them directly, marked "
        "with their author (docs/project.md, 'Who may write').",
    )
    search_exact_max_notes: int = Field(
        default=300, ge=0, description="Users with at most this many notes are searched exactly."
    )
    search_oversample: float = Field(default=1.5, ge=1.0, description="Index oversampling factor.")
    search_min_candidates: int = Field(
        default=100, ge=1, description="Fewest candidates asked of the vector index (recall at small k)."
    )
    search_ann_max_candidates: int = Field(
        default=5_000, ge=100, description="Most candidates asked of the vector index before an exact scan."
    )
    search_term_limit: int = Field(
        default=1_000,
        ge=10,
        le=100_000,
        description="Matches of one query word the keyword half of search and recall reads at most: "
        "a word found in more of a user's notes (or insights) than this counts as common and is left "
        "out while a rarer word of the query is present (docs/retrieval.md, 'Keyword scores').",
    )
    tenant_size_cache_seconds: float = Field(default=30.0, ge=0)

    # --- conversation memory -------------------------------------------------------
    extractor: Literal["auto", "llm", "rules"] = Field(
        default="auto", description="auto: the LLM when CTXNET_LLM_MODEL is set, else the offline rules."
    )
    llm_model: str | None = Field(default=None, description="Chat model for insight extraction.")
    llm_base_url: str | None = Field(
        default=None, description="OpenAI-compatible base URL (Ollama, vLLM, ...)."
    )
    llm_api_key: SecretStr | None = None
    llm_timeout_seconds: float = 60.0
    llm_max_retries: int = Field(default=4, ge=0, le=20)
    llm_judge: Literal["auto", "off"] = Field(
        default="auto",
        description="auto: with CTXNET_LLM_MODEL set, a background job asks the model about the note "
        "pairs the update rule leaves undecided and the threads a new decision's notice nearly reached "
        "(docs/knowledge.md, 'When the rule is unsure'); off: never.",
    )
    llm_judge_max_questions: int = Field(
        default=40, ge=3, le=1_000, description="Most pairs and threads one judge job asks the model about."
    )
    llm_judge_batch: int = Field(
        default=10, ge=1, le=50, description="Questions the judge puts in one LLM call."
    )
    llm_judge_delay_seconds: float = Field(
        default=2.0,
        ge=0,
        description="How long after a create the judge's job starts (creates meanwhile: one job).",
    )
    llm_judge_notice_margin: float = Field(
        default=0.5,
        ge=0,
        le=10,
        description="A thread standing this far below CTXNET_DECISION_NOTIFY_STANDING, not told, is put "
        "to the model.",
    )
    llm_judge_notice_threads: int = Field(
        default=8, ge=0, le=50, description="Most threads per new decision put to the model (0: none)."
    )
    insight_valid_above: float = Field(
        default=0.7, ge=0, le=1, description="Feedback loop keeps insights above."
    )
    insight_consolidate_above: float = Field(
        default=0.8, ge=0, le=1, description="Consolidation keeps insights above."
    )

    # --- background jobs ----------------------------------------------------------------
    job_lease_seconds: float = Field(
        default=30.0,
        ge=1.0,
        description="A live job's lease, renewed every third of it; one that runs out is failed.",
    )
    jobs_max_in_flight: int = Field(
        default=4, ge=1, le=256, description="Jobs run at once per process; the rest wait queued."
    )
    job_shutdown_grace_seconds: float = Field(
        default=10.0, ge=0, description="How long shutdown waits for running jobs before failing them."
    )

    # --- maintenance (docs/maintenance.md) ------------------------------------------------
    maintenance_consolidate_every_hours: float = Field(
        default=0.0, ge=0, description="Run consolidate for every user this often (0: never; the seed: 168)."
    )
    maintenance_validate_every_hours: float = Field(
        default=0.0, ge=0, description="Run validate-connections for every user this often (0: never; 720)."
    )
    maintenance_archive_every_hours: float = Field(
        default=0.0, ge=0, description="Run archive-superseded for every user this often (0: never)."
    )
    maintenance_archive_older_than_days: int = Field(
        default=90, ge=0, le=36_500, description="archive-superseded archives decisions superseded before."
    )
    maintenance_tick_seconds: float = Field(
        default=60.0, gt=0, description="How often the API looks for scheduled maintenance that is due."
    )
    maintenance_users: list[str] = Field(
        default_factory=list,
        description="Schedule maintenance for these users only (JSON list); empty: every user holding data.",
    )

    # --- the HTTP API ------------------------------------------------------------
    api_host: str = "127.0.0.1"
    api_port: int = Field(default=8000, ge=1, le=65535)
    api_workers: int = Field(
        default=0,
        ge=0,
        le=64,
        description="API processes `ctxnet serve` runs behind the one port (uvicorn workers); 0: "
        "one per core, at most 4. Jobs, leases and rate limits live in Neo4j, so they hold across them.",
    )
    agents_file: Path | None = Field(
        default=None,
        description="The agents' YAML configuration (context bridge per agent); without one, "
        "every agent gets the built-in defaults. See agents.example.yml.",
    )
    api_key_mode: Literal["required", "disabled"] = Field(
        default="required",
        description="'disabled' makes every request the 'local' human user: for a laptop only.",
    )
    api_key_cache_seconds: float = Field(
        default=5.0, ge=0, description="How long a resolved key is trusted before Neo4j is asked again."
    )
    rate_limit_per_minute: int = Field(
        default=0,
        ge=0,
        description="Requests one API key may make in any minute, over all API processes "
        "(counted in Neo4j); beyond it 429 with Retry-After. 0: no limit.",
    )
    desk_signin_client_failures: int = Field(
        default=5,
        ge=0,
        description="Failed desk sign-ins one client (IP) may make in CTXNET_DESK_SIGNIN_CLIENT_SECONDS, "
        "over all API processes; beyond it 429 with Retry-After. 0: no limit.",
    )
    desk_signin_client_seconds: int = Field(default=60, ge=1, le=86_400)
    desk_signin_user_failures: int = Field(
        default=10,
        ge=0,
        description="Failed desk sign-ins with one person's key (a revoked one, an agent's, or a "
        "wrong one with its prefix) in CTXNET_DESK_SIGNIN_USER_SECONDS; beyond it 429. 0: no limit.",
    )
    desk_signin_user_seconds: int = Field(default=900, ge=1, le=86_400)
    api_max_body_bytes: int = Field(
        default=4 * 1024 * 1024, ge=1024, description="Largest request body (413 above), batches apart."
    )
    api_max_batch_body_bytes: int = Field(
        default=16 * 1024 * 1024,
        ge=1024,
        description="Largest body of the batch routes; 1,000 notes with 384-dim vectors are ~9 MB.",
    )
    page_bytes: int = Field(
        default=384 * 1024,
        ge=1,
        description="What a page of a listing may weigh in JSON: a page of large items holds fewer "
        "than `limit` (one at least), and its nextCursor goes on from there.",
    )
    log_level: str = "INFO"
    log_format: Literal["json", "text"] = "json"

    @model_validator(mode="after")
    def _llm_extractor_needs_a_model(self) -> Settings:
        if self.extractor == "llm" and not self.llm_model:
            raise ValueError("CTXNET_LLM_MODEL must be set when CTXNET_EXTRACTOR=llm")
        return self

    @model_validator(mode="after")
    def _openai_embedder_needs_a_dimension(self) -> Settings:
        if self.embedder == "openai" and self.embedding_dimension is None:
            raise ValueError(
                "CTXNET_EMBEDDING_DIMENSION must be set when CTXNET_EMBEDDER=openai "
                "(it sizes the vector index)"
            )
        return self

    # --- derived values ------------------------------------------------------------
    @property
    def neo4j_home(self) -> Path:
        """Folder of the local Neo4j runtime: lib/, conf/, data/, logs/, run/."""
        return self.data_dir / "neo4j"

    @property
    def resolved_models_dir(self) -> Path:
        """Where fetched model files live."""
        return self.models_dir or self.data_dir / "models"

    @property
    def local_password_file(self) -> Path:
        """Where the local runtime keeps the password it generated."""
        return self.neo4j_home / "password"

    @property
    def resolved_api_workers(self) -> int:
        """``api_workers``, with 0 resolved to one per core (at most 4)."""
        return self.api_workers or min(os.cpu_count() or 1, 4)

    @property
    def resolved_neo4j_uri(self) -> str:
        """The configured URI, or the local runtime's Bolt address."""
        return self.neo4j_uri or f"bolt://127.0.0.1:{self.neo4j_bolt_port}"

    def resolved_neo4j_password(self) -> str | None:
        """The configured password, else the one the local runtime generated."""
        if self.neo4j_password is not None:
            return self.neo4j_password.get_secret_value()
        if self.local_password_file.is_file():
            return self.local_password_file.read_text(encoding="utf-8").strip()
        return None


def default_models_dir() -> Path:
    """The models folder of the process-wide settings."""
    return get_settings().resolved_models_dir


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read once."""
    return Settings()
