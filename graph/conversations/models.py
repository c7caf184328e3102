"""Domain models of conversation memory (independent of HTTP): a message to append and an
insight to record; what a thread is for, who wrote a message and what an insight says are
the wire's vocabulary (:mod:`ctxnet.wire.vocabulary`)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime

from ctxnet.wire.vocabulary import ContextType as ContextType
from ctxnet.wire.vocabulary import InsightType as InsightType
from ctxnet.wire.vocabulary import Role as Role


@dataclass(frozen=True)
class NewMessage:
    """A message to append."""

    role: Role
    content: str
    id: str | None = None
    created_at: datetime | None = None
    #: A payload kept exactly: its compact JSON text (never embedded nor searched).
    data: str | None = None


@dataclass(frozen=True)
class RecordedInsight:
    """An insight found outside the service (an extractor of the caller's, or an export read
    back), to record into a thread as extraction would have stored it."""

    message_id: str
    type: InsightType
    content: str
    confidence: float
    id: str | None = None
    extractor: str = "recorded"
    extracted_at: datetime | None = None
    embedding: list[float] | None = None
    #: Notes already made from it (consolidated): linked, and it is not made into one again.
    knowledge_ids: tuple[str, ...] = ()


def insight_key(message_id: str, insight_type: str, content: str) -> str:
    """What makes an insight the same insight: its message, type and (normalised) content."""
    normal = " ".join(content.lower().split())
    return hashlib.sha256(f"{message_id}\x1f{insight_type}\x1f{normal}".encode()).hexdigest()
