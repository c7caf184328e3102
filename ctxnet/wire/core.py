"""Response bodies of the service itself: readiness, the principal behind a key, and the
journal of changes."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel
from pydantic.json_schema import SkipJsonSchema

from ctxnet.wire.base import OutModel

_ABSENT_IF_UNREACHABLE = "As in the 200 body; absent when Neo4j did not answer."


class ReadyOut(BaseModel):
    """``/ready`` when requests can be served (200)."""

    status: Literal["ready"]
    neo4j: str = Field(description="The Bolt URI the service uses.")
    database: str = Field(description="The Neo4j database the service uses.")
    embedder: str = Field(description="The embedding model's id.")
    dimension: int = Field(description="The embedder's vector size, which the vector indexes match.")


class NotReadyOut(BaseModel):
    """``/ready`` when requests cannot be served (503). When Neo4j does not answer, only
    ``status`` and ``reason`` are sent (where Neo4j runs is in the log, not in the answer);
    when it answers but the schema is not in place, the fields of the 200 body too."""

    status: Literal["unavailable"]
    # Left out of the body when unset, never sent as null; SkipJsonSchema keeps null out of
    # the document too, so it says what is true: when present, a value.
    neo4j: str | SkipJsonSchema[None] = Field(default=None, description=_ABSENT_IF_UNREACHABLE)
    database: str | SkipJsonSchema[None] = Field(default=None, description=_ABSENT_IF_UNREACHABLE)
    embedder: str | SkipJsonSchema[None] = Field(default=None, description=_ABSENT_IF_UNREACHABLE)
    dimension: int | SkipJsonSchema[None] = Field(default=None, description=_ABSENT_IF_UNREACHABLE)
    reason: str = Field(description="Why not, in words; several problems are joined with '; '.")


class PrincipalOut(BaseModel):
    """The caller, as the API sees it."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    user_id: str
    role: str
    agent_id: str | None
    key_id: str | None
    scope: dict[str, list[str]] | None = Field(
        default=None, description="The key's entity scope ({ids, tags}): the only notes it sees. None: all."
    )


class ActorOut(OutModel):
    """Who made a change."""

    user_id: str
    role: str = Field(description="human, agent, or system (a pipeline of the service).")
    agent_id: str | None = None
    session_id: str | None = Field(default=None, description="From the request's X-Session-ID header.")


class MutationOut(OutModel):
    """One change of your memory, as the journal recorded it."""

    id: str
    seq: int = Field(description="The write's number in your sequence: the journal's order.")
    part: int = Field(default=0, description="The change's place within its write (a batch has many).")
    at: str
    actor: ActorOut
    op: str = Field(description="e.g. note.create, note.update, edge.connect, profile.patch, session.end.")
    target_type: str
    target_id: str
    before: Any = Field(default=None, description="The changed fields before (absent for a create).")
    after: Any = Field(default=None, description="The changed fields after (absent for a delete).")
    undoes: str | None = Field(default=None, description="The mutation this one undid.")
    undone_by: str | None = Field(default=None, description="The mutation that undid this one.")
    proposal_id: str | None = Field(
        default=None, description="The proposal a person approved, if this is one."
    )
    scrubbed: bool | None = Field(
        default=None,
        description="True when what it changed was forgotten (POST /v1/forget, or the user's): the "
        "entry keeps its place, its before and after are gone.",
    )


class MutationPageOut(OutModel):
    """A page of the journal, newest first."""

    items: list[MutationOut]
    next_cursor: str | None = None


class UndoneOut(OutModel):
    """An undo, as the journal recorded it (its `undoes` names the mutation undone)."""

    mutation: MutationOut
