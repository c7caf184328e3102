"""Request and response bodies of a whole user out and back (``GET /v1/export/all``,
``/v1/restore``): the records of :mod:`graph.io.format`."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from ctxnet.wire.base import CamelModel, Id, JsonBounds, OutModel

#: A node's or relationship's properties: JSON values, a temporal one an object of one key.
Properties = Annotated[dict[str, Any], JsonBounds(max_depth=4, max_bytes=2 * 1024 * 1024)]
#: Records one batch carries at most.
MAX_RECORDS = 5_000
#: An element id of the exporting database, as a ref.
REF = r"^[0-9A-Za-z:_-]{1,200}$"
SHA256 = r"^[0-9a-f]{64}$"
#: What a restore id is (a hex uuid).
RESTORE_ID = r"^[0-9a-f]{32}$"


class ExportPageOut(OutModel):
    """A page of a whole user's records (``docs/import.md``, "A whole user, out and back")."""

    items: list[dict[str, Any]] = Field(
        description="Records in order: the first page starts with the header "
        "(`{record: export, format, userId, exportedAt, seq, tenant, nodes, relationships, leftOut}`), "
        "then `{record: node, ref, labels, properties}` kind by kind, then "
        "`{record: relationship, type, start, end, properties}`."
    )
    next_cursor: str | None = Field(
        default=None, alias="nextCursor", description="The next page; none at the end."
    )


class ExportHeaderIn(CamelModel):
    """The first line of an export: what a restore checks and sets at its end."""

    tenant: Properties = Field(description="The Tenant node's counters (`seq`, `notes`, ...).")
    record: Literal["export"]
    format: int = Field(
        ge=0, le=1_000_000, description="The format's version; only this server's is restored."
    )
    user_id: Id = Field(description="Whose export it is; a restore into another user rewrites it.")
    exported_at: str | None = Field(default=None, max_length=64)
    seq: int = Field(ge=0, le=2**62, description="The user's write sequence when exported.")
    nodes: dict[Annotated[str, Field(max_length=64)], Annotated[int, Field(ge=0, le=2**62)]] = Field(
        max_length=100, description="How many nodes of each kind the file holds."
    )
    relationships: dict[Annotated[str, Field(max_length=64)], Annotated[int, Field(ge=0, le=2**62)]] = Field(
        max_length=100, description="How many relationships of each type the file holds."
    )
    left_out: list[Annotated[str, Field(max_length=64)]] | None = Field(default=None, max_length=100)


class RestoreIn(CamelModel):
    """Begin a restore into the caller's user, which must hold nothing."""

    header: ExportHeaderIn
    sha256: str = Field(pattern=SHA256, description="The checksum of the file's lines before its end record.")
    records: int = Field(
        ge=0, le=2**62, description="How many node and relationship records follow the header."
    )


class RestoreRecordIn(CamelModel):
    """A node or a relationship of the file."""

    properties: Properties
    record: Literal["node", "relationship"]
    ref: str | None = Field(default=None, pattern=REF, description="A node's ref.")
    labels: list[Annotated[str, Field(max_length=64)]] | None = Field(
        default=None, min_length=1, max_length=20
    )
    type: str | None = Field(default=None, max_length=64, description="A relationship's type.")
    start: str | None = Field(default=None, pattern=REF, description="A relationship's start (a node's ref).")
    end: str | None = Field(default=None, pattern=REF, description="A relationship's end (a node's ref).")

    @model_validator(mode="after")
    def _complete(self) -> RestoreRecordIn:
        needed = ("ref", "labels") if self.record == "node" else ("type", "start", "end")
        missing = [name for name in needed if getattr(self, name) is None]
        if missing:
            raise ValueError(f"a {self.record} record needs {', '.join(missing)}")
        return self


class RestoreBatchIn(CamelModel):
    """The next records of the file."""

    records: list[RestoreRecordIn] = Field(max_length=MAX_RECORDS)
    restore_id: str = Field(pattern=RESTORE_ID)
    offset: int = Field(
        ge=0, le=2**62, description="The first record's place among the file's records (from 0)."
    )


class RestoreFinishIn(CamelModel):
    """End a restore whose every record was written."""

    restore_id: str = Field(pattern=RESTORE_ID)


class RestoreStateOut(OutModel):
    """The restore under way for the caller's user, if any."""

    restoring: bool
    restore_id: str | None = Field(default=None, alias="restoreId")
    from_user: str | None = Field(default=None, alias="from", description="The exported user.")
    sha256: str | None = None
    records: int | None = None
    records_done: int | None = Field(default=None, alias="recordsDone")
    started_at: str | None = Field(default=None, alias="startedAt")


class RestoreBatchOut(OutModel):
    """How far a restore has come."""

    restore_id: str = Field(alias="restoreId")
    records_done: int = Field(alias="recordsDone")
    rewritten: int = Field(
        default=0, description="Values equal to the exported user's id this batch wrote as the caller's."
    )


class RestoredOut(OutModel):
    """A finished restore."""

    restore_id: str = Field(alias="restoreId")
    user_id: str = Field(alias="userId")
    from_user: str | None = Field(default=None, alias="from", description="The exported user.")
    seq: int = Field(description="The restore's journal entry's number: the exported sequence + 1.")
    mutation_id: str = Field(alias="mutationId", description="The `user.restore` journal entry.")
    nodes: dict[str, int]
    relationships: dict[str, int]


class RestoreDiscardedOut(OutModel):
    """What a discard removed."""

    restore_id: str = Field(alias="restoreId")
    discarded: int = Field(description="Nodes deleted.")
