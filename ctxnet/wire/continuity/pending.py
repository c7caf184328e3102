"""Request and response bodies of pending actions: what a session left open, resolved or carried
forward."""

from __future__ import annotations

from pydantic import Field, field_validator

from ctxnet.wire.base import NOT_BLANK, CamelModel, Id, OutModel, non_blank


class PendingActionOut(OutModel):
    """A pending action with where it came from and where it is now."""

    id: str
    text: str
    status: str = Field(description="open, or done once acknowledged and cleared.")
    carried_count: int = Field(description="How often it was carried forward into a later session.")
    agent_id: str
    origin_session_id: str = Field(description="The session whose end left it open.")
    session_id: str = Field(description="The session it belongs to now (another, once carried).")
    created_at: str
    resolution: str | None = None
    resolved_at: str | None = None


class PendingActionListOut(OutModel):
    """Pending actions, oldest first."""

    items: list[PendingActionOut]
    next_cursor: str | None = Field(default=None, description="The next page; none at the end.")


class ResolutionIn(CamelModel):
    """How a pending action was resolved."""

    resolution: str = Field(max_length=2_000, json_schema_extra=NOT_BLANK)

    @field_validator("resolution")
    @classmethod
    def _resolution(cls, value: str) -> str:
        return non_blank(value, "resolution")


class CarryIn(CamelModel):
    """The session a pending action is carried into."""

    session_id: Id
