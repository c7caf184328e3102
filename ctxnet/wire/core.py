"""Response bodies of the service itself: readiness, the principal behind a key, the limits it
holds requests to, and the journal of changes."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel
from pydantic.json_schema import SkipJsonSchema

from ctxnet.wire.base import OutModel
from ctxnet.wire.continuity.sessions import MAX_TOOL_CALLS
from ctxnet.wire.conversations import MAX_MESSAGE, MAX_MESSAGES, MAX_RECORDED_INSIGHTS
from ctxnet.wire.knowledge.notes import MAX_BATCH, MAX_CONTENT, MAX_NOTE_TAGS, MAX_TITLE
from ctxnet.wire.knowledge.search import MAX_QUERY, MAX_TOP_K
from ctxnet.wire.limits import ServerLimits

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


class LimitsOut(OutModel):
    """What this server holds requests to: the limits its settings decide, and the contract's
    own that a client most often meets (every other is in the OpenAPI document)."""

    max_note_words: int = Field(
        description="Most words of a note's content, and of a decision, pattern or constraint "
        "(CTXNET_NOTE_MAX_WORDS): a note is atomic."
    )
    vector_size: int = Field(description="The size of every vector a request carries: the embedder's.")
    max_notes_per_batch: int = Field(description="Most notes in one POST /v1/knowledge/batch.")
    max_edges_per_batch: int = Field(description="Most edges in one POST /v1/connections/batch.")
    max_messages_per_append: int = Field(description="Most messages one append to a thread carries.")
    max_insights_per_record: int = Field(description="Most insights one record call carries.")
    max_tool_calls_per_append: int = Field(
        description="Most tool calls one append to a session's log carries."
    )
    max_title_chars: int = Field(description="Most characters of a note's title.")
    max_content_chars: int = Field(description="Most characters of a note's content.")
    max_note_tags: int = Field(description="Most tags of a note.")
    max_message_chars: int = Field(description="Most characters of a message.")
    max_query_chars: int = Field(description="Most characters of a search's query.")
    max_top_k: int = Field(description="Most hits one search asks for.")

    @classmethod
    def of(cls, server: ServerLimits) -> LimitsOut:
        """A server's limits beside the contract's own."""
        return cls(
            max_note_words=server.note_max_words, vector_size=server.vector_size,
            max_notes_per_batch=MAX_BATCH, max_edges_per_batch=MAX_BATCH,
            max_messages_per_append=MAX_MESSAGES, max_insights_per_record=MAX_RECORDED_INSIGHTS,
            max_tool_calls_per_append=MAX_TOOL_CALLS, max_title_chars=MAX_TITLE,
            max_content_chars=MAX_CONTENT, max_note_tags=MAX_NOTE_TAGS, max_message_chars=MAX_MESSAGE,
            max_query_chars=MAX_QUERY, max_top_k=MAX_TOP_K,
        )  # fmt: skip

    def server(self) -> ServerLimits:
        """The limits a server's settings decide, as a validation's context takes them
        (:mod:`ctxnet.wire.limits`)."""
        return ServerLimits(note_max_words=self.max_note_words, vector_size=self.vector_size)


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
