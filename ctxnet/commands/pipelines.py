"""The service's own work on a user's memory, run in this process (no API needed), as a
pipeline of the service: ``ctxnet threads`` (extraction, the feedback loop, consolidation),
``ctxnet skills install`` and ``ctxnet maintenance``."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from ctxnet.commands.runner import run, with_db
from graph.core.db import Database
from graph.core.embeddings import build_embedder
from graph.core.principals import Principal, Role
from graph.core.schema import migrate
from graph.core.settings import Settings

threads_app = typer.Typer(
    help="Conversation memory: extraction, feedback loop, consolidation.", no_args_is_help=True
)
skills_app = typer.Typer(help="Skills agents load when their trigger fits.", no_args_is_help=True)


# --- ctxnet threads ----------------------------------------------------------------------------
def _run_pipeline(user: str, thread: str, step: str) -> dict[str, int]:
    """Run one pipeline step for a user's thread in this process (no API needed)."""
    from graph.conversations.extractors import build_extractor
    from graph.conversations.memory import ConversationMemory
    from graph.core.jobs import Jobs
    from graph.knowledge.network import KnowledgeNetwork

    async def work(settings: Settings) -> dict[str, int]:
        embedder = build_embedder(settings)
        extractor = build_extractor(settings)

        async def inner(db: Database) -> dict[str, int]:
            await migrate(db, embedder.dimension)
            knowledge = KnowledgeNetwork.from_settings(db, embedder, settings)
            memory = ConversationMemory.from_settings(
                db, embedder, extractor, knowledge.notes, Jobs(db), settings
            )
            service = memory.insights
            # The command runs the pipeline itself: its writes carry the system role.
            principal = Principal(user_id=user, role=Role.SYSTEM, agent_id="cli")
            if step == "extract":
                return await service.extract(principal, thread)
            if step == "feedback-loop":
                return await service.feedback_loop(principal, thread)
            return await service.consolidate(principal, thread)

        try:
            return await with_db(settings, inner)
        finally:
            close = getattr(extractor, "close", None)
            if close is not None:
                await close()

    return run(work)


def _print_counts(counts: dict[str, int]) -> None:
    typer.echo("  ".join(f"{k}={v}" for k, v in counts.items()))


@threads_app.command("extract")
def threads_extract(
    user: Annotated[str, typer.Option(help="The thread's user.")],
    thread: Annotated[str, typer.Option(help="The thread id.")],
) -> None:
    """Extract a thread's insights (idempotent)."""
    _print_counts(_run_pipeline(user, thread, "extract"))


@threads_app.command("feedback-loop")
def threads_feedback_loop(
    user: Annotated[str, typer.Option(help="The thread's user.")],
    thread: Annotated[str, typer.Option(help="The thread id.")],
) -> None:
    """Extract, keep confident insights, update or create the user's knowledge."""
    _print_counts(_run_pipeline(user, thread, "feedback-loop"))


@threads_app.command("consolidate")
def threads_consolidate(
    user: Annotated[str, typer.Option(help="The thread's user.")],
    thread: Annotated[str, typer.Option(help="The thread id.")],
) -> None:
    """Turn a thread's high-confidence insights into permanent knowledge."""
    _print_counts(_run_pipeline(user, thread, "consolidate"))


# --- ctxnet skills -----------------------------------------------------------------------------
@skills_app.command("install")
def skills_install(user: Annotated[str, typer.Option(help="The user who gets the skills.")]) -> None:
    """Install the starter bundle of skills for a user (again: updates what changed)."""
    from graph.continuity.skills import SkillService, starter_skills

    async def work(settings: Settings) -> list[tuple[dict[str, Any], str]]:
        principal = Principal(user_id=user, role=Role.HUMAN)
        return await with_db(settings, lambda db: SkillService(db).put(principal, starter_skills()))

    for skill, outcome in run(work):
        typer.echo(f"{outcome:9} {skill['id']}  {skill['name']}")


# --- ctxnet maintenance ------------------------------------------------------------------------
def maintenance(
    task: Annotated[str, typer.Argument(help="consolidate, validate-connections or archive-superseded.")],
    user: Annotated[str, typer.Option(help="The user whose memory is maintained.")],
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Report what would change; change nothing.")
    ] = False,
    older_than_days: Annotated[
        int | None,
        typer.Option(help="archive-superseded: decisions superseded more than this many days ago."),
    ] = None,
) -> None:
    """Run one maintenance task for a user now, in this process (no API needed), as a pipeline
    of the service (a person's corrections hold its writes back); prints the report as JSON."""
    import json

    from graph.conversations.extractors import build_extractor
    from graph.conversations.memory import ConversationMemory
    from graph.core.jobs import Jobs
    from graph.core.principals import validate_identifier
    from graph.knowledge.network import KnowledgeNetwork
    from graph.project.maintenance import MaintenanceService, check_task

    validate_identifier(user, "user")

    async def work(settings: Settings) -> dict[str, Any]:
        check_task(task, older_than_days)  # a typo fails before the model loads
        embedder = build_embedder(settings)
        extractor = build_extractor(settings)

        async def inner(db: Database) -> dict[str, Any]:
            await migrate(db, embedder.dimension)
            knowledge = KnowledgeNetwork.from_settings(db, embedder, settings)
            jobs = Jobs(db)
            memory = ConversationMemory.from_settings(
                db, embedder, extractor, knowledge.notes, jobs, settings
            )
            service = MaintenanceService.from_settings(db, memory.insights, jobs, settings)
            principal = Principal(user_id=user, role=Role.SYSTEM, agent_id="cli")
            done = await service.run(principal, task, dry_run=dry_run, older_than_days=older_than_days)
            return {"user": user, "counts": done.counts, "report": done.report}

        try:
            return await with_db(settings, inner)
        finally:
            close = getattr(extractor, "close", None)
            if close is not None:
                await close()

    typer.echo(json.dumps(run(work), indent=2))
