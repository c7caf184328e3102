"""Request and response bodies of saved sessions: each session's wiki page and the insights it
yielded."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints, field_validator

from ctxnet.wire.base import NOT_BLANK, CamelModel, OutModel, non_blank
from ctxnet.wire.vocabulary import InsightType

#: How many typed insights a save carries: none, or three to five (the seed's shape).
MIN_INSIGHTS, MAX_INSIGHTS = 3, 5
#: Most items in each list of a page (decisions, learnings, open questions).
MAX_ITEMS = 50

Item = Annotated[str, StringConstraints(min_length=1, max_length=2_000), Field(json_schema_extra=NOT_BLANK)]


class SavedInsightIn(CamelModel):
    """A typed insight the session yielded."""

    type: InsightType
    content: str = Field(min_length=1, max_length=2_000, json_schema_extra=NOT_BLANK)
    confidence: float = Field(default=0.9, ge=0.0, le=1.0, description="How sure the agent is.")


class SessionSaveIn(CamelModel):
    """A session's wiki page: the seed's summary template."""

    summary: str = Field(
        min_length=1, max_length=10_000, description="What the session did.", json_schema_extra=NOT_BLANK
    )
    decisions: list[Item] = Field(default_factory=list, max_length=MAX_ITEMS)
    learnings: list[Item] = Field(default_factory=list, max_length=MAX_ITEMS)
    open_questions: list[Item] = Field(default_factory=list, max_length=MAX_ITEMS)
    insights: list[SavedInsightIn] = Field(
        default_factory=list,
        max_length=MAX_INSIGHTS,
        description="None, or 3 to 5 typed insights.",
        json_schema_extra={"not": {"minItems": 1, "maxItems": 2}},
    )

    @field_validator("summary")
    @classmethod
    def _summary(cls, value: str) -> str:
        return non_blank(value, "summary")


class PageInsightOut(OutModel):
    """An insight of a saved page (also listed by `GET /v1/insights`)."""

    id: str
    type: str
    content: str
    confidence: float
    extracted_at: str | None = None


class WikiPageOut(OutModel):
    """A saved session's concept page."""

    slug: str = Field(description="Stable: the first save names it, later saves keep it.")
    session_id: str
    agent_id: str | None = None
    title: str
    summary: str
    decisions: list[str]
    learnings: list[str]
    open_questions: list[str]
    insights: list[PageInsightOut]
    saved_at: str
    created_at: str
    saved_count: int = Field(description="How often the session was saved with changes.")
    saved_by_role: str | None = None
    markdown: str = Field(description="The page as markdown, front matter `type: concept`, `session: true`.")


class WikiSavedOut(OutModel):
    """The page as saved, and what the save did."""

    page: WikiPageOut
    outcome: Literal["created", "updated", "unchanged"]


class WikiPageListOut(OutModel):
    """Saved pages, newest save first."""

    items: list[WikiPageOut]
    next_cursor: str | None = None
