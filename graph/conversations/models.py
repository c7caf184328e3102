"""Domain models of conversation memory (independent of HTTP): what a thread is for, who
wrote a message, and what an insight says."""

from __future__ import annotations

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


class InsightType(StrEnum):
    """What an insight says about the user or the work."""

    PREFERENCE = "preference"
    FACT = "fact"
    DECISION = "decision"
    QUESTION = "question"
