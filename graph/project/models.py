"""Domain models of project context: architecture decisions, patterns and constraints.

Each entry is a knowledge note (so it is embedded, searchable, journaled, undoable and can be
an end of the typed edges: a note can ``dependsOn`` a decision) that also carries the
``ProjectContext`` label, its kind's own label and the fields of its kind. The labels here
are the allow-list: no other reaches Cypher.
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxnet.wire.vocabulary import ProjectKind as ProjectKind
from graph.knowledge.models import KnowledgeSource, KnowledgeType

_LABELS = {
    ProjectKind.DECISION: "ArchitectureDecision",
    ProjectKind.PATTERN: "Pattern",
    ProjectKind.CONSTRAINT: "Constraint",
}
_TYPES = {
    ProjectKind.DECISION: KnowledgeType.DECISION,
    ProjectKind.PATTERN: KnowledgeType.PROCEDURE,
    ProjectKind.CONSTRAINT: KnowledgeType.FACT,
}


def entry_label(kind: ProjectKind) -> str:
    """Its own label beside ``Knowledge`` and ``ProjectContext`` (Neo4j Browser colours by it)."""
    return _LABELS[kind]


def note_type_of(kind: ProjectKind) -> KnowledgeType:
    """The note type it is stored as: a decision is a decision, a pattern a procedure (how
    things are done here), a constraint a fact (what must hold)."""
    return _TYPES[kind]


def note_source_of(kind: ProjectKind) -> KnowledgeSource:
    """Where the note says it came from (the seed: ``decision`` for architectural
    decisions, ``docs`` for the project's documentation)."""
    return KnowledgeSource.DECISION if kind is ProjectKind.DECISION else KnowledgeSource.DOCS


@dataclass(frozen=True)
class NewEntry:
    """A project context entry to record (validated by the API layer).

    ``body`` is the decision itself (a decision), the description (a pattern or constraint):
    the note's content. ``context`` and ``consequences`` are a decision's; ``agents`` are
    the agents it affects (none: every agent of the project).
    """

    kind: ProjectKind
    title: str
    body: str
    id: str | None = None
    context: str | None = None
    consequences: tuple[str, ...] = ()
    date: str | None = None
    agents: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class AgentDocs:
    """An agent's documentation: what it can do, what it must not, and its base instructions."""

    capabilities: tuple[str, ...] = ()
    constraints: tuple[str, ...] = ()
    base_instructions: str | None = None
