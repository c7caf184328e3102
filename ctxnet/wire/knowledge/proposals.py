"""Request and response bodies of a person's word: corrections (and the sessions that saw them)
and the proposals an agent's write becomes when it would override one."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from ctxnet.wire.base import NOT_BLANK, CamelModel, Id, OutModel, non_blank


class ProposedByOut(OutModel):
    """Who proposed a write."""

    role: str
    agent_id: str | None = None
    session_id: str | None = None


class ProposalDecisionOut(OutModel):
    """How a person decided a proposal."""

    reason: str | None = None
    mutation_ids: list[str] = Field(
        default_factory=list, description="The journal entries of the write, once approved."
    )


class ProposalOut(OutModel):
    """An agent's write held back because it would override a person's correction."""

    id: str
    status: Literal["pending", "approved", "rejected"]
    op: str = Field(description="note.create, note.update, note.delete, or undo.")
    target_id: str | None = None
    payload: dict[str, Any] = Field(description="The write as the agent asked for it.")
    fields: list[str] = Field(description="The corrected fields it would change.")
    correction_ids: list[str]
    proposed_by: ProposedByOut
    created_at: str
    decided_at: str | None = None
    decision: ProposalDecisionOut | None = None


class ProposedOut(OutModel):
    """202: the write was not applied; a person decides (POST /v1/proposals/{id}/approve)."""

    proposal: ProposalOut


class ProposalRefOut(OutModel):
    """A proposal a batch item became (the whole of it: ``GET /v1/proposals``)."""

    id: str
    status: Literal["pending", "approved", "rejected"]


class ProposalPageOut(OutModel):
    """A page of proposals, newest first."""

    items: list[ProposalOut]
    next_cursor: str | None = None


class DecideIn(CamelModel):
    """A person's decision on a proposal."""

    reason: str | None = Field(default=None, max_length=2_000)


class AcknowledgementOut(OutModel):
    """A session that has seen a correction."""

    session_id: str
    action_taken: str
    at: str


class CorrectionOut(OutModel):
    """A person's correction of agent-written fields of a note."""

    id: str
    kind: Literal["update", "delete"]
    status: Literal["active", "retired"] = Field(
        description="retired once the mutation it records is undone."
    )
    target_type: str
    target_id: str
    fields: list[str]
    mutation_id: str
    before: dict[str, Any] = Field(description="What the agent had written, field by field.")
    after: dict[str, Any] | None = Field(default=None, description="What the person set (none for a delete).")
    reason: str | None = Field(default=None, description="The X-Change-Reason the person gave.")
    at: str
    acknowledgements: list[AcknowledgementOut]


class CorrectionPageOut(OutModel):
    """A page of corrections, newest first."""

    items: list[CorrectionOut]
    next_cursor: str | None = None


class AcknowledgeIn(CamelModel):
    """A session acknowledges a correction."""

    session_id: Id
    action_taken: str = Field(
        max_length=2_000, description="What the session did about it.", json_schema_extra=NOT_BLANK
    )

    @field_validator("action_taken")
    @classmethod
    def _action_taken(cls, value: str) -> str:
        return non_blank(value, "actionTaken")
