"""Project context requests as the domain takes them: decisions, patterns, constraints, agents'
docs."""

from __future__ import annotations

from datetime import date

from ctxnet.wire.project import AgentDocsIn, DecisionIn, DescribedIn
from graph.project.models import AgentDocs, NewEntry, ProjectKind


def _day(day: date | None) -> str | None:
    return day.isoformat() if day else None


def decision_entry(body: DecisionIn) -> NewEntry:
    """The domain's view of a decision to record."""
    return NewEntry(
        kind=ProjectKind.DECISION, title=body.title, body=body.decision, id=body.id,
        context=body.context, consequences=tuple(body.consequences), date=_day(body.date),
        agents=tuple(body.agents), tags=tuple(body.tags),
    )  # fmt: skip


def described_entry(body: DescribedIn, kind: ProjectKind) -> NewEntry:
    """The domain's view of a pattern or a constraint to record."""
    return NewEntry(
        kind=kind, title=body.title, body=body.description, id=body.id, date=_day(body.date),
        agents=tuple(body.agents), tags=tuple(body.tags),
    )  # fmt: skip


def agent_docs(body: AgentDocsIn) -> AgentDocs:
    """The domain's view of an agent's documentation."""
    return AgentDocs(tuple(body.capabilities), tuple(body.constraints), body.base_instructions)
