"""Request and response bodies of skills: how-tos an agent loads when their trigger fits."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ctxnet.wire.base import NOT_BLANK, CamelModel, Id, OutModel
from ctxnet.wire.continuity import ActorOut

MAX_NAME = 200
MAX_BODY = 50_000
MAX_TRIGGER = 1_000
MAX_TAGS = 20
MAX_TAG = 64


class SkillIn(CamelModel):
    """A skill to create, or to redefine (its invocation count is kept)."""

    id: Id = Field(description="e.g. `starter:wake-up`.")
    name: str = Field(min_length=1, max_length=MAX_NAME, json_schema_extra=NOT_BLANK)
    body_md: str = Field(
        min_length=1, max_length=MAX_BODY, description="The how-to, in markdown.", json_schema_extra=NOT_BLANK
    )
    bundle: Id = Field(default="default", description="The set it ships in; lists filter by it.")
    trigger: str = Field(default="", max_length=MAX_TRIGGER, description="When an agent should load it.")
    tags: list[Annotated[str, Field(min_length=1, max_length=MAX_TAG, json_schema_extra=NOT_BLANK)]] = Field(
        default_factory=list, max_length=MAX_TAGS
    )


class SkillOut(OutModel):
    """A skill (with its body when read or loaded, not when listed)."""

    id: str
    name: str
    bundle: str
    trigger: str
    tags: list[str]
    invocation_count: int = Field(description="How often it was loaded.")
    created_at: str
    updated_at: str
    created_by: ActorOut
    updated_by: ActorOut = Field(description="Who wrote it last (a scoped key redefines only its own).")
    last_loaded_at: str | None = None
    body_md: str | None = None


class SkillWrittenOut(OutModel):
    """The skill as written, and what the write did."""

    skill: SkillOut
    outcome: Literal["created", "updated", "unchanged"]


class SkillPageOut(OutModel):
    """Skills by id, without their bodies."""

    items: list[SkillOut]
    next_cursor: str | None = None
