"""Request and response bodies of conversation memory: threads, messages, insights, jobs."""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from ctxnet.wire.base import (
    NOT_BLANK,
    CamelModel,
    Data,
    DateTime,
    Id,
    OutModel,
    Vector,
    non_blank,
    vector_size,
)
from ctxnet.wire.vocabulary import ContextType, InsightType
from ctxnet.wire.vocabulary import Role as MessageRole

#: Most messages one append may carry.
MAX_MESSAGES = 1_000
#: Most characters of a message.
MAX_MESSAGE = 100_000
#: Most insights one record call may carry.
MAX_RECORDED_INSIGHTS = 500


# --- threads and messages ------------------------------------------------------------------------
class ThreadIn(CamelModel):
    """A conversation thread to create."""

    id: Id | None = None
    context_type: ContextType = ContextType.GENERAL
    topic: str = Field(min_length=1, max_length=500, json_schema_extra=NOT_BLANK)

    @field_validator("topic")
    @classmethod
    def _topic(cls, value: str) -> str:
        return non_blank(value, "topic")


class ThreadOut(OutModel):
    """A thread as the API shows it."""

    id: str
    context_type: ContextType
    topic: str
    message_count: int
    created_at: str
    updated_at: str
    related_threads: list[str]


class ThreadPageOut(OutModel):
    """A page of threads, most recently active first."""

    items: list[ThreadOut]
    next_cursor: str | None = None


class ThreadLinkIn(CamelModel):
    """The other thread of a link."""

    thread_id: Id


class MessageIn(CamelModel):
    """A message to append."""

    id: Id | None = None
    role: MessageRole
    content: str = Field(min_length=1, max_length=MAX_MESSAGE)
    created_at: DateTime | None = None
    data: Data = Field(
        default=None,
        description="A JSON value kept exactly as sent (any type; at most 32 deep and 65,536 characters "
        "as compact JSON): returned as it was, never embedded or searched.",
    )


class MessagesIn(CamelModel):
    """One or more messages, appended in order."""

    messages: list[MessageIn] = Field(min_length=1, max_length=MAX_MESSAGES)


class MessageOut(OutModel):
    """A message in its thread."""

    id: str
    role: MessageRole
    content: str
    seq: int
    created_at: str
    data: Any = Field(default=None, description="The payload kept with the message, as it was sent.")


class MessagePageOut(OutModel):
    """Messages in order."""

    items: list[MessageOut]
    next_cursor: str | None = None


# --- insights and their jobs ---------------------------------------------------------------------
class JobStarted(OutModel):
    """A queued job; poll ``GET /v1/jobs/{jobId}``."""

    job_id: str


class JobOut(OutModel):
    """A background job: queued, running, done (with counts) or failed (with the reason)."""

    id: str
    kind: str
    thread_id: str | None = None
    status: str
    counts: dict[str, int] | None = None
    report: dict[str, Any] | None = Field(
        default=None, description="What the job found and changed, in detail (maintenance jobs)."
    )
    error: str | None = None
    created_at: str
    updated_at: str
    started_at: str | None = None
    finished_at: str | None = None


class ConsolidatedOut(OutModel):
    """What consolidation did."""

    consolidated: int
    created: int
    updated: int


class InsightOut(OutModel):
    """An insight extracted from a message, or saved with a session's wiki page."""

    id: str
    thread_id: str | None = Field(default=None, description="The thread of the message it came from.")
    session_id: str | None = Field(default=None, description="The saved session it came from.")
    page_slug: str | None = Field(default=None, description="The wiki page of that session.")
    type: InsightType
    content: str
    confidence: float
    extractor: str
    extracted_at: str | None = None
    message_id: str | None = None
    knowledge_ids: list[str] = Field(default_factory=list)
    score: float | None = Field(default=None, description="Recall: cosine to the query.")
    text_score: float | None = Field(
        default=None, description="Recall: keyword score, when its words matched."
    )


class InsightRecordIn(CamelModel):
    """An insight found outside the service, to record as extraction would have stored it."""

    id: Id | None = Field(default=None, description="Your id for the insight; generated if absent.")
    message_id: Id = Field(description="The thread's message it came from.")
    type: InsightType
    content: str = Field(min_length=3, max_length=2_000, json_schema_extra=NOT_BLANK)
    confidence: float = Field(ge=0.0, le=1.0)
    extractor: str = Field(
        default="recorded", min_length=1, max_length=100, description="What found it (kept on the insight)."
    )
    extracted_at: DateTime | None = Field(default=None, description="When it was found; now if absent.")
    embedding: Vector | None = Field(
        default=None,
        description="A precomputed vector of the index dimension; skips the embedder.",
        json_schema_extra=vector_size,
    )
    knowledge_ids: list[Id] = Field(
        default_factory=list,
        max_length=100,
        description="Notes already made from it: linked, and consolidation does not make it a note again.",
    )

    @field_validator("content")
    @classmethod
    def _content(cls, value: str) -> str:
        non_blank(value, "content")
        return value  # as given: an export read back keeps its insights' words exactly


class InsightsIn(CamelModel):
    """Insights to record into a thread, in one transaction."""

    items: list[InsightRecordIn] = Field(min_length=1, max_length=MAX_RECORDED_INSIGHTS)


class InsightRecordedOut(InsightOut):
    """A recorded insight, and whether this call made it."""

    created: bool


class InsightsRecordedOut(OutModel):
    """The recorded insights, in the order sent."""

    items: list[InsightRecordedOut]


class InsightPageOut(OutModel):
    """A page of insights, newest first."""

    items: list[InsightOut]
    next_cursor: str | None = None


class UserContextIn(CamelModel):
    """What the agent is working on now."""

    query: str = Field(min_length=1, max_length=4_000)
    limit: int = Field(default=10, ge=1, le=100)
    topics: int = Field(default=5, ge=0, le=50)


class TopicOut(OutModel):
    """A recent thread's topic."""

    thread_id: str
    topic: str
    context_type: str
    updated_at: str


class UserContextOut(OutModel):
    """Relevant insights from any thread, and the topics of the latest threads."""

    insights: list[InsightOut]
    recent_topics: list[TopicOut]
