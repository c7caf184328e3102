"""Request and response bodies of notes: create (one or a batch), read, patch, and the merges a
note keeps."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, ValidationInfo, field_validator, model_validator
from pydantic.alias_generators import to_camel

from ctxnet.wire.base import (
    NOT_BLANK,
    CamelModel,
    Data,
    Id,
    OutModel,
    Tag,
    Vector,
    absent_not_null,
    non_blank,
    unique_tags,
    vector_size,
)
from ctxnet.wire.knowledge.proposals import ProposalOut, ProposalRefOut
from ctxnet.wire.knowledge.validity import ValidFrom, ValidityIn, ValidUntil
from ctxnet.wire.limits import server_limits
from ctxnet.wire.vocabulary import KnowledgeSource, KnowledgeStatus, KnowledgeType

#: Most notes (or edges) one batch request may carry (one transaction each).
MAX_BATCH = 1_000
#: Most characters of a note's title, and of its content.
MAX_TITLE, MAX_CONTENT = 300, 20_000
#: Most tags of a note.
MAX_NOTE_TAGS = 32


def word_limit(content: str, info: ValidationInfo | None = None) -> str:
    """``content``, if it holds no more words than an atomic note may on this server (else a
    ValueError); unchecked where the server's limit is not known (:mod:`ctxnet.wire.limits`)."""
    limits = server_limits(info.context if info is not None else None)
    if limits is None:
        return content
    limit = limits.note_max_words
    words = len(content.split())
    if words > limit:
        raise ValueError(
            f"content has {words} words; an atomic note holds at most {limit}: "
            "split it into several notes and connect them"
        )
    return content


#: What the ``data`` field of a note is.
DATA_DESCRIPTION = (
    "A JSON value kept exactly as sent (any type; at most 32 deep and 65,536 characters as compact "
    "JSON): returned as it was, never embedded, searched or compared."
)


class NoteIn(ValidityIn):
    """A note to create."""

    id: Id | None = Field(default=None, description="Your id for the note; generated if absent.")
    title: str = Field(max_length=MAX_TITLE, json_schema_extra=NOT_BLANK)
    content: str = Field(max_length=MAX_CONTENT, json_schema_extra=NOT_BLANK)
    type: KnowledgeType
    source: KnowledgeSource = KnowledgeSource.INFERRED
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    tags: list[Tag] = Field(default_factory=list, max_length=MAX_NOTE_TAGS)
    embedding: Vector | None = Field(
        default=None,
        description="A precomputed vector of the index dimension; skips the embedder.",
        json_schema_extra=vector_size,
    )
    dedupe: bool = Field(
        default=True, description="Fold into an active note at or above the embedder's dedupe threshold."
    )
    source_ref: str | None = Field(
        default=None,
        min_length=1,
        max_length=512,
        description="The document, thread or session this note came from; search can keep one hit "
        "per source (collapseBy).",
    )
    data: Data = Field(default=None, description=DATA_DESCRIPTION)

    @field_validator("title")
    @classmethod
    def _title(cls, value: str) -> str:
        return non_blank(value, "title")

    @field_validator("content")
    @classmethod
    def _content(cls, value: str, info: ValidationInfo) -> str:
        return word_limit(non_blank(value, "content"), info)

    @field_validator("tags")
    @classmethod
    def _tag_list(cls, value: list[str]) -> list[str]:
        return unique_tags(value) or []


class NoteBatchIn(CamelModel):
    """Up to 1,000 notes, created all or nothing."""

    items: list[NoteIn] = Field(min_length=1, max_length=MAX_BATCH)


class NotePatchIn(CamelModel):
    """Fields to change; absent fields stay as they are."""

    # Each may be left out, none be null: the document says so (no null, at least one field).
    model_config = ConfigDict(json_schema_extra={"minProperties": 1})

    title: str | None = Field(
        default=None, max_length=MAX_TITLE, json_schema_extra=absent_not_null(NOT_BLANK)
    )
    content: str | None = Field(
        default=None, max_length=MAX_CONTENT, json_schema_extra=absent_not_null(NOT_BLANK)
    )
    type: KnowledgeType | None = Field(default=None, json_schema_extra=absent_not_null())
    source: KnowledgeSource | None = Field(default=None, json_schema_extra=absent_not_null())
    confidence: float | None = Field(default=None, ge=0.0, le=1.0, json_schema_extra=absent_not_null())
    tags: list[Tag] | None = Field(
        default=None, max_length=MAX_NOTE_TAGS, json_schema_extra=absent_not_null()
    )
    status: KnowledgeStatus | None = Field(
        default=None,
        description="active or archived; a note becomes superseded through a supersedes edge.",
        json_schema_extra=absent_not_null(
            {"enum": [KnowledgeStatus.ACTIVE.value, KnowledgeStatus.ARCHIVED.value]}
        ),
    )
    source_ref: str | None = Field(
        default=None, min_length=1, max_length=512, json_schema_extra=absent_not_null()
    )
    valid_from: ValidFrom = Field(
        default=None, description="When this became true; null: from when it was recorded."
    )
    valid_until: ValidUntil = Field(default=None, description="When this stopped being true; null: open.")
    data: Data = Field(default=None, description=f"{DATA_DESCRIPTION} Replaces the payload; null: none.")

    @field_validator("title")
    @classmethod
    def _title(cls, value: str | None) -> str | None:
        return None if value is None else non_blank(value, "title")

    @field_validator("content")
    @classmethod
    def _content(cls, value: str | None, info: ValidationInfo) -> str | None:
        return None if value is None else word_limit(non_blank(value, "content"), info)

    @field_validator("tags")
    @classmethod
    def _tag_list(cls, value: list[str] | None) -> list[str] | None:
        return unique_tags(value)

    @model_validator(mode="after")
    def _something(self) -> NotePatchIn:
        if not self.model_fields_set:
            raise ValueError("nothing to change: send at least one field")
        for name in self.model_fields_set - _CLEARABLE:
            if getattr(self, name) is None:
                raise ValueError(f"{to_camel(name)} cannot be null")
        if None not in (self.valid_from, self.valid_until) and self.valid_until <= self.valid_from:  # type: ignore[operator]
            raise ValueError("validUntil must come after validFrom")
        return self

    def cleared(self) -> frozenset[str]:
        """The valid time sent as null (open again; a note valid again keeps no reason it
        ended), and a payload sent as null (none)."""
        names = {to_camel(n) for n in _CLEARABLE & self.model_fields_set if getattr(self, n) is None}
        return frozenset(names | ({"invalidReason"} if "validUntil" in names else set()))


#: What a patch may set to null: a note's valid time (open again), its payload (none).
_CLEARABLE = frozenset({"valid_from", "valid_until", "data"})


class MergeOut(OutModel):
    """A create that was folded into this note (nothing is lost)."""

    requested_id: str | None = None
    title: str
    content: str
    type: str
    source: str
    confidence: float
    similarity: float
    merged_at: str
    source_ref: str | None = None
    data: Any = Field(default=None, description="The payload the folded create carried, as sent.")


class WrittenByOut(OutModel):
    """Who wrote a note: who created it, and which fields a person wrote last (an agent or
    a pipeline of the service wrote the rest). What a person wrote is held against agents'
    writes (docs/journal.md#corrections)."""

    created_by_role: str | None = None
    created_by_agent: str | None = None
    person_fields: list[str] = Field(default_factory=list)


class NoteOut(OutModel):
    """A note as the API shows it."""

    id: str
    title: str
    content: str
    type: KnowledgeType
    source: KnowledgeSource
    confidence: float
    status: KnowledgeStatus
    tags: list[str]
    created_at: str
    updated_at: str
    merge_count: int = Field(default=0, description="How many creates were merged into this note.")
    merges: list[MergeOut] = Field(
        default_factory=list,
        description="The newest 3 of them at most; GET /v1/knowledge/{id}/merges pages them all.",
    )
    embedding: list[float] | None = None
    source_ref: str | None = None
    valid_from: str | None = Field(default=None, description="When it became true (absent: when recorded).")
    valid_until: str | None = Field(
        default=None,
        description="When it stopped being true: the date stated or set, or the start of the note that "
        "supersedes it, whichever is earlier (absent: still true).",
    )
    invalid_reason: str | None = Field(
        default=None, description="Why it stopped being true (an invalidation)."
    )
    written_by: WrittenByOut | None = None
    data: Any = Field(default=None, description="The payload kept with the note, as it was sent.")


#: What a created note that updates a near-twin names (a single create and a batch item alike).
Supersedes = Annotated[
    Id | None,
    Field(
        description="created: the note this one updates (a near-twin that changed a value; it is now "
        "superseded, not folded in)."
    ),
]
ConflictsWith = Annotated[
    Id | None,
    Field(
        description="created: the near-twin this one conflicts with (a name changed beside another "
        "value: both stay active, joined by a conflictsWith edge)."
    ),
]


class CreatedNoteOut(OutModel):
    """The outcome of one create: the note, or (an agent's create of a fact a person
    deleted, or a merge into corrected fields) the proposal it became."""

    node: NoteOut | None = None
    merged_into: str | None = None
    already_merged: bool | None = Field(
        default=None,
        description="True when an earlier create of this id was merged (this one changed nothing).",
    )
    supersedes: Supersedes = None
    conflicts_with: ConflictsWith = None
    proposal: ProposalOut | None = None


class NoteBatchItemOut(OutModel):
    """What became of one item of a batch: its outcome and the ids that name it, not the note."""

    id: str | None = Field(
        default=None,
        description="created / existing: the note's id; merged / proposed: the id asked for, if any.",
    )
    outcome: Literal["created", "existing", "merged", "proposed"] = Field(
        description="created: a new note; existing: the id existed with these fields; merged: "
        "folded into its twin (mergedInto); proposed: held back by a person's correction (proposal)."
    )
    merged_into: str | None = Field(default=None, description="merged: the twin it was folded into.")
    already_merged: bool | None = Field(
        default=None,
        description="merged: true when an earlier create of this id was merged (this one changed nothing).",
    )
    supersedes: Supersedes = None
    conflicts_with: ConflictsWith = None
    proposal: ProposalRefOut | None = None


class NoteBatchOut(OutModel):
    """Outcomes in request order."""

    results: list[NoteBatchItemOut]


class MergePageOut(OutModel):
    """A page of a note's merge records, newest first."""

    items: list[MergeOut]
    merge_count: int = Field(description="How many creates were merged into the note in all.")
    next_cursor: str | None = None


class NotePageOut(OutModel):
    """A page of notes."""

    items: list[NoteOut]
    next_cursor: str | None = None
