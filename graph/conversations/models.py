"""Domain models of conversation memory (independent of HTTP): what a thread is for, who
wrote a message, and what an insight says."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum


class ContextType(StrEnum):
    """What a thread is for."""

    SUPPORT = "support"
    RESEARCH = "research"
    PLANNING = "planning"
    GENERAL = "general"


class Role(StrEnum):
    """Who wrote a message."""

    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"
    TOOL = "tool"


@dataclass(frozen=True)
class NewMessage:
    """A message to append."""

    role: Role
    content: str
    id: str | None = None
    created_at: datetime | None = None
    #: A payload kept exactly: its compact JSON text (never embedded nor searched).
    data: str | None = None


class InsightType(StrEnum):
    """What an insight says about the user or the work."""

    PREFERENCE = "preference"
    FACT = "fact"
    DECISION = "decision"
    QUESTION = "question"


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
