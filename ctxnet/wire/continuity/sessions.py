"""Request and response bodies of sessions: started, ended with a summary, and each session's
tool-call log and its replay."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, field_validator

from ctxnet.wire.base import NOT_BLANK, BoundedJson, CamelModel, DateTime, Id, OutModel, non_blank
from ctxnet.wire.continuity.bridge import BridgeOut
from ctxnet.wire.continuity.pending import PendingActionOut

#: Most tool calls one append may carry.
MAX_TOOL_CALLS = 500


class SessionIn(CamelModel):
    """A session to start."""

    id: Id | None = Field(default=None, description="Your id for the session; generated if absent.")
    agent_id: Id | None = Field(default=None, description="The agent; defaults to the key's agent.")
    topic: str | None = Field(default=None, max_length=500, description="What the session opens on.")
    opening_message: str | None = Field(
        default=None, max_length=20_000, description="The user's first message."
    )
    thread_id: Id | None = Field(default=None, description="A conversation thread of yours it belongs to.")


class SessionEndIn(CamelModel):
    """How a session ended."""

    summary: str = Field(
        max_length=4_000,
        description="2-4 sentences: what was discussed and decided.",
        json_schema_extra=NOT_BLANK,
    )
    topics: list[Annotated[str, Field(min_length=1, max_length=200)]] = Field(
        default_factory=list, max_length=50
    )
    key_decisions: list[Annotated[str, Field(min_length=1, max_length=2_000)]] = Field(
        default_factory=list, max_length=50
    )
    pending_actions: list[Annotated[str, Field(min_length=1, max_length=2_000)]] = Field(
        default_factory=list, max_length=100, description="Items left open; each becomes a pending action."
    )
    message_count: int = Field(default=0, ge=0, le=1_000_000)
    duration_minutes: int | None = Field(
        default=None, ge=0, le=525_600, description="Computed from start and end when absent."
    )

    @field_validator("summary")
    @classmethod
    def _summary(cls, value: str) -> str:
        return non_blank(value, "summary")


class SessionOut(OutModel):
    """A session as stored."""

    id: str
    agent_id: str
    topic: str | None = None
    opening_message: str | None = None
    thread_id: str | None = None
    status: str = Field(description="open, or ended.")
    started_at: str
    ended_at: str | None = None
    previous_id: str | None = Field(default=None, description="The agent's session with you before this one.")
    summary: str | None = None
    topics: list[str] | None = None
    key_decisions: list[str] | None = None
    message_count: int | None = None
    duration_minutes: int | None = None
    pending_actions: list[PendingActionOut] = Field(default_factory=list)


class SessionEndedOut(OutModel):
    """The ended session and the pending actions it left open."""

    session: SessionOut
    pending_actions: list[PendingActionOut]


class SessionPageOut(OutModel):
    """A page of sessions, newest first."""

    items: list[SessionOut]
    next_cursor: str | None = None


class SessionStartedOut(OutModel):
    """The started session and its context bridge."""

    session: SessionOut
    bridge: BridgeOut


class ToolCallIn(CamelModel):
    """One tool call an agent made."""

    tool: str = Field(min_length=1, max_length=200, description="The tool's name.")
    arguments: BoundedJson = Field(
        default=None,
        description="As given (any JSON: at most 16 KiB, nested at most 20 deep, integers within "
        "64 bits); stored, never executed.",
    )
    result_summary: str | None = Field(default=None, max_length=4_000)
    duration_ms: int | None = Field(default=None, ge=0, le=86_400_000)
    at: DateTime | None = Field(default=None, description="When it was called; now if absent.")
    position: int | None = Field(
        default=None,
        ge=1,
        le=1_000_000_000,
        description=(
            "Its place in the log, from 1 (give all calls one, following on, or none): a call at "
            "a position the log holds is a repeat and is skipped, so a retried append changes nothing."
        ),
    )


class ToolCallsIn(CamelModel):
    """Tool calls to append to a session's log, in the order they were made."""

    items: list[ToolCallIn] = Field(
        min_length=1,
        max_length=MAX_TOOL_CALLS,
        description="Every call with its `position`, or none with one.",
        # Not a call with a position beside one without (`not`, which readers that
        # generate bodies skip, where they would take an `anyOf` branch for the schema).
        json_schema_extra={
            "not": {
                "allOf": [
                    {"contains": {"required": ["position"], "properties": {"position": {"type": "integer"}}}},
                    {
                        "contains": {
                            "anyOf": [
                                {"not": {"required": ["position"]}},
                                {"properties": {"position": {"type": "null"}}},
                            ]
                        }
                    },
                ]
            }
        },
    )


class ToolCallsOut(OutModel):
    """Where the calls landed in the session's log."""

    session_id: str
    first: int = Field(description="The position of the first call sent.")
    last: int = Field(description="The position of the last.")
    appended: int = Field(description="How many were new (the rest were repeats of given positions).")


class ToolCallOut(OutModel):
    """A recorded tool call."""

    position: int = Field(description="Its place in the session's log, from 1.")
    tool: str
    arguments: Any = None
    result_summary: str | None = None
    duration_ms: int | None = None
    at: str
    recorded_at: str
    role: str
    agent_id: str | None = None


class ReplayOut(OutModel):
    """A session's tool calls in the order they were recorded."""

    session_id: str
    items: list[ToolCallOut]
    next_cursor: str | None = None
