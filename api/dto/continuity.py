"""Session continuity requests as the domain takes them: sessions and their tool calls, goals,
skills, a catch-up's scope, saved sessions."""

from __future__ import annotations

from ctxnet.wire.continuity.goals import GoalIn
from ctxnet.wire.continuity.sessions import SessionEndIn, SessionIn, ToolCallIn
from ctxnet.wire.continuity.skills import SkillIn
from ctxnet.wire.continuity.wakeup import EntityScopeIn
from ctxnet.wire.continuity.wiki import SessionSaveIn
from graph.continuity.goals import NewGoal
from graph.continuity.sessions import NewSession, SessionEnd
from graph.continuity.skills import NewSkill
from graph.continuity.toolcalls import ToolCall
from graph.continuity.wiki import SavedInsight, SessionSave
from graph.core.principals import Scope


def new_session(body: SessionIn) -> NewSession:
    """The domain's view of a session to start."""
    return NewSession(
        id=body.id,
        agent_id=body.agent_id,
        topic=body.topic,
        opening_message=body.opening_message,
        thread_id=body.thread_id,
    )


def session_end(body: SessionEndIn) -> SessionEnd:
    """The domain's view of how a session ended."""
    return SessionEnd(
        summary=body.summary,
        topics=tuple(body.topics),
        key_decisions=tuple(body.key_decisions),
        pending_actions=tuple(body.pending_actions),
        message_count=body.message_count,
        duration_minutes=body.duration_minutes,
    )


def tool_call(body: ToolCallIn) -> ToolCall:
    """The domain's view of one tool call."""
    return ToolCall(
        tool=body.tool, arguments=body.arguments, result_summary=body.result_summary,
        duration_ms=body.duration_ms, at=body.at, position=body.position,
    )  # fmt: skip


def new_goal(body: GoalIn) -> NewGoal:
    """The domain's view of a goal to push."""
    return NewGoal(title=body.title, id=body.id, parent_id=body.parent_id)


def new_skill(body: SkillIn) -> NewSkill:
    """The domain's view of a skill to write (checked as the domain checks one)."""
    return NewSkill(
        id=body.id, name=body.name, body_md=body.body_md, bundle=body.bundle, trigger=body.trigger,
        tags=tuple(body.tags),
    ).checked()  # fmt: skip


def entity_scope(body: EntityScopeIn) -> Scope:
    """The part of the user's knowledge a catch-up narrows to."""
    return Scope(ids=tuple(body.ids), tags=tuple(body.tags))


def session_save(body: SessionSaveIn) -> SessionSave:
    """The domain's view of a session's wiki page."""
    return SessionSave(
        summary=body.summary, decisions=tuple(body.decisions), learnings=tuple(body.learnings),
        open_questions=tuple(body.open_questions),
        insights=tuple(SavedInsight(i.type.value, i.content, i.confidence) for i in body.insights),
    )  # fmt: skip
