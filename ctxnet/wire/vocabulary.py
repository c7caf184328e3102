"""The words of the contract: every closed set of values a request or an answer carries.

The service's domain (``graph``) uses these same enums, so a value the wire takes is one the
domain knows; what each means in storage (a note type's Neo4j label, an edge type's
relationship type) stays with the domain, which keeps those mappings as its allow-lists.
"""

from __future__ import annotations

from enum import StrEnum


# --- knowledge -----------------------------------------------------------------------------------
class KnowledgeType(StrEnum):
    """What kind of atomic note this is; each has its own Neo4j sublabel."""

    FACT = "fact"
    CONCEPT = "concept"
    PROCEDURE = "procedure"
    DECISION = "decision"


class KnowledgeSource(StrEnum):
    """Where a note came from."""

    DOCS = "docs"
    CONVERSATION = "conversation"
    DECISION = "decision"
    INFERRED = "inferred"


class KnowledgeStatus(StrEnum):
    """Lifecycle of a note; only active notes are searched by default."""

    ACTIVE = "active"
    SUPERSEDED = "superseded"
    ARCHIVED = "archived"


class EdgeType(StrEnum):
    """The four typed knowledge edges, by their API names."""

    RELATED_TO = "relatedTo"
    DEPENDS_ON = "dependsOn"
    SUPERSEDES = "supersedes"
    CONFLICTS_WITH = "conflictsWith"


class Direction(StrEnum):
    """Which way expansion follows edges."""

    OUT = "out"
    IN = "in"
    BOTH = "both"


class SearchMode(StrEnum):
    """Vector, fulltext, or both fused by reciprocal rank."""

    VECTOR = "vector"
    FULLTEXT = "fulltext"
    HYBRID = "hybrid"


# --- conversations -------------------------------------------------------------------------------
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


class InsightType(StrEnum):
    """What an insight says about the user or the work."""

    PREFERENCE = "preference"
    FACT = "fact"
    DECISION = "decision"
    QUESTION = "question"


# --- project -------------------------------------------------------------------------------------
class ProjectKind(StrEnum):
    """What a project context entry is."""

    DECISION = "decision"
    PATTERN = "pattern"
    CONSTRAINT = "constraint"


class Layer(StrEnum):
    """A layer of context unified search reaches."""

    KNOWLEDGE = "knowledge"
    MEMORY = "memory"
    DOCS = "docs"
