"""Valid time in request bodies: when a fact (a note, an edge) became true and stopped being
true, and the invalidation of a fact that stopped being true."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import Field, ValidationInfo, field_validator

from ctxnet.wire.base import NOT_BLANK, CamelModel, DateTime, non_blank


def millis(moment: datetime | None) -> int | None:
    """A moment as stored (epoch milliseconds: a note's valid time is JSON in the journal as
    it is in the graph, compared as numbers)."""
    return None if moment is None else int(moment.timestamp() * 1000)


ValidFrom = Annotated[
    DateTime | None,
    Field(
        description="When this became true (RFC 3339). Absent: when neither validFrom nor validUntil is "
        'sent, a date the text states ("since 2024", "from 1 March 2027"), else from when it was '
        "recorded.",
    ),
]
ValidUntil = Annotated[
    DateTime | None,
    Field(
        description="When this stopped (or stops) being true (RFC 3339, exclusive). Absent: a date the "
        'text states ("until 31 March 2027": the whole day), else open. Reads that feed an agent leave '
        "out what has ended.",
    ),
]


class ValidityIn(CamelModel):
    """A body with valid time: ``validUntil`` must come after ``validFrom``."""

    valid_from: ValidFrom = None
    valid_until: ValidUntil = None

    @field_validator("valid_until")
    @classmethod
    def _ordered(cls, value: datetime | None, info: ValidationInfo) -> datetime | None:
        start = info.data.get("valid_from")
        if value is not None and start is not None and value <= start:
            raise ValueError("validUntil must come after validFrom")
        return value

    def valid_millis(self) -> tuple[int | None, int | None]:
        """``validFrom`` and ``validUntil`` as stored (epoch milliseconds)."""
        return millis(self.valid_from), millis(self.valid_until)


class InvalidateIn(CamelModel):
    """A fact that stopped being true: why, and since when (now, if ``at`` is absent)."""

    reason: str = Field(min_length=1, max_length=2_000, json_schema_extra=NOT_BLANK)
    at: DateTime | None = Field(
        default=None, description="When it stopped being true (RFC 3339); now if absent."
    )

    @field_validator("reason")
    @classmethod
    def _reason(cls, value: str) -> str:
        return non_blank(value, "reason")

    def at_millis(self) -> int | None:
        """``at`` as stored (epoch milliseconds), or ``None`` for now."""
        return millis(self.at) if isinstance(self.at, datetime) else None
