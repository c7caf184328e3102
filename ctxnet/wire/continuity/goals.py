"""Request and response bodies of the goal stack."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from ctxnet.wire.base import NOT_BLANK, CamelModel, Id, OutModel, non_blank
from ctxnet.wire.continuity import ActorOut


class GoalIn(CamelModel):
    """A goal to push onto the stack."""

    id: Id | None = Field(default=None, description="Your id for the goal; generated if absent.")
    title: str = Field(
        min_length=1, max_length=500, description="What is being worked towards.", json_schema_extra=NOT_BLANK
    )
    parent_id: Id | None = Field(default=None, description="An active goal of yours this one is a step of.")

    @field_validator("title")
    @classmethod
    def _title(cls, value: str) -> str:
        return non_blank(value, "title")


class GoalCloseIn(CamelModel):
    """How a goal ended."""

    outcome: str | None = Field(default=None, max_length=2_000, description="What came of it.")


class GoalAbandonIn(CamelModel):
    """Why a goal was dropped."""

    reason: str | None = Field(default=None, max_length=2_000)


class GoalOut(OutModel):
    """A goal on the stack."""

    id: str
    title: str
    status: Literal["active", "completed", "abandoned"]
    parent_id: str | None = None
    created_at: str
    created_by: ActorOut
    session_id: str | None = Field(default=None, description="The session it was set in (X-Session-ID).")
    closed_at: str | None = None
    closed_by: ActorOut | None = None
    outcome: str | None = None


class GoalPageOut(OutModel):
    """Active goals first (newest on top), then closed ones (most recently closed first)."""

    items: list[GoalOut]
    next_cursor: str | None = None
