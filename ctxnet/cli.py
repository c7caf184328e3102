"""``ctxnet``: run the local Neo4j, migrate the schema, manage API keys, serve the API."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Annotated, Any, TextIO, TypeVar

import typer

from ctxnet.models import fetch_model
from ctxnet.neo4j_server import LocalNeo4j
from graph.core.browser_guide import api_base_url, guide_url, render_guide, style_text, style_url
from graph.core.db import Database
from graph.core.embeddings import (
    LOCAL_MODELS,
    build_embedder,
    embedder_dimension,
    embedder_model_id,
    local_model,
)
from graph.core.errors import ContextNetworkError, InvalidInput, Unauthenticated
from graph.core.principals import ApiKeys, Principal, Role, Scope
from graph.core.schema import check_schema, foreign_vectors, migrate, reembed
from graph.core.settings import Settings, get_settings
from graph.core.users import forget_user

T = TypeVar("T")

app = typer.Typer(help="Context Network: memory and knowledge for AI agents.", no_args_is_help=True)
neo4j_app = typer.Typer(help="The project's own local Neo4j server.", no_args_is_help=True)
db_app = typer.Typer(help="The database schema.", no_args_is_help=True)
keys_app = typer.Typer(help="API keys (stored hashed in Neo4j).", no_args_is_help=True)
users_app = typer.Typer(help="Whole-user operations.", no_args_is_help=True)
threads_app = typer.Typer(
    help="Conversation memory: extraction, feedback loop, consolidation.", no_args_is_help=True
)
app.add_typer(neo4j_app, name="neo4j")
app.add_typer(db_app, name="db")
app.add_typer(keys_app, name="keys")
app.add_typer(users_app, name="users")
app.add_typer(threads_app, name="threads")
skills_app = typer.Typer(help="Skills agents load when their trigger fits.", no_args_is_help=True)
app.add_typer(skills_app, name="skills")
models_app = typer.Typer(help="The local embedding models.", no_args_is_help=True)
app.add_typer(models_app, name="models")
browser_app = typer.Typer(help="Neo4j Browser: the guide and the style.", no_args_is_help=True)
app.add_typer(browser_app, name="browser")


def _fail(message: str) -> typer.Exit:
    typer.secho(f"error: {message}", fg=typer.colors.RED, err=True)
    return typer.Exit(code=1)


def _run(work: Callable[[Settings], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine with the settings; domain errors become one red line and exit 1."""
    settings = get_settings()
    try:
        return asyncio.run(work(settings))
    except ContextNetworkError as exc:
        raise _fail(exc.message) from None


async def _with_db(settings: Settings, work: Callable[[Database], Awaitable[T]], wait: float = 10.0) -> T:
    db = Database.from_settings(settings)
    try:
        await db.wait_until_reachable(wait)
        return await work(db)
    finally:
        await db.close()


# --- ctxnet neo4j ----------------------------------------------------------------------------
def _local() -> LocalNeo4j:
    return LocalNeo4j(get_settings())


@neo4j_app.command("fetch")
def neo4j_fetch() -> None:
    """Download Neo4j Community and Neo4j Browser from Maven Central (once)."""
    local = _local()
    try:
        fetched = local.fetch()
    except ContextNetworkError as exc:
        raise _fail(exc.message) from None
    typer.echo(f"Neo4j {'fetched into' if fetched else 'already in'} {local.lib}")


@neo4j_app.command("start")
def neo4j_start() -> None:
    """Start the local Neo4j and wait until Bolt answers."""
    local = _local()
    try:
        started = local.start()
    except ContextNetworkError as exc:
        raise _fail(exc.message) from None
    typer.echo(("started: " if started else "already running: ") + local.status().describe())


@neo4j_app.command("stop")
def neo4j_stop() -> None:
    """Shut the local Neo4j down cleanly."""
    stopped = _local().stop()
    typer.echo("stopped" if stopped else "was not running")


@neo4j_app.command("status")
def neo4j_status() -> None:
    """Is the local Neo4j running? Exit code 0 if it is, 3 if not."""
    status = _local().status()
    typer.echo(status.describe())
    raise typer.Exit(code=0 if status.running else 3)


@neo4j_app.command("wait")
def neo4j_wait(timeout: Annotated[float, typer.Option(help="Seconds to wait.")] = 120.0) -> None:
    """Wait until Neo4j (local or CTXNET_NEO4J_URI) accepts an authenticated Bolt session."""

    async def work(settings: Settings) -> None:
        await _with_db(settings, lambda db: db.ping(), wait=timeout)

    _run(work)
    typer.echo(f"Neo4j answers at {get_settings().resolved_neo4j_uri}")


# --- ctxnet db -------------------------------------------------------------------------------
@db_app.command("migrate")
def db_migrate() -> None:
    """Apply cypher/schema (idempotent) and check the vector index dimensions."""

    async def work(settings: Settings) -> None:
        async def inner(db: Database) -> None:
            report = await migrate(db, embedder_dimension(settings))
            for problem in report.problems:
                typer.echo(f"note: {problem}")

        await _with_db(settings, inner)

    _run(work)
    typer.echo("schema up to date")


@db_app.command("status")
def db_status() -> None:
    """Show whether the schema fits this build; exit 1 if not."""

    async def work(settings: Settings) -> list[str]:
        async def inner(db: Database) -> list[str]:
            problems = (await check_schema(db, embedder_dimension(settings))).problems
            foreign = await foreign_vectors(db, embedder_model_id(settings))
            return [*problems, foreign] if foreign else problems

        return await _with_db(settings, inner)

    problems = _run(work)
    for problem in problems:
        typer.echo(problem)
    if problems:
        raise typer.Exit(code=1)
    typer.echo("schema up to date")


@db_app.command("reembed")
def db_reembed() -> None:
    """Resize vector indexes for the configured embedder and recompute every stale vector."""

    async def work(settings: Settings) -> int:
        embedder = build_embedder(settings)

        async def inner(db: Database) -> int:
            return await reembed(db, embedder, progress=lambda n: typer.echo(f"re-embedded {n} more"))

        return await _with_db(settings, inner)

    done = _run(work)
    typer.echo(f"done: {done} vectors re-embedded (notes, insights, saved pages, corrections)")


# --- ctxnet models ---------------------------------------------------------------------------
@models_app.command("fetch")
def models_fetch(
    every: Annotated[
        bool, typer.Option("--all", help="Every local model, not only the configured one.")
    ] = False,
) -> None:
    """Fetch the local embedding model's files (sha256-checked) into the models folder."""
    settings = get_settings()
    for model in LOCAL_MODELS.values() if every else [local_model(settings)]:
        try:
            fetched = fetch_model(model, settings.resolved_models_dir, settings.maven_repository)
        except ContextNetworkError as exc:
            raise _fail(exc.message) from None
        typer.echo(f"{model.name}: {'fetched' if fetched else 'already in place'}")


# --- ctxnet browser --------------------------------------------------------------------------
ApiUrl = Annotated[
    str | None,
    typer.Option("--url", help="The API that serves the guide [default: the local one, from the settings]."),
]


@browser_app.command("guide")
def browser_guide(
    url: ApiUrl = None,
    write: Annotated[
        Path | None, typer.Option(help="Also write the guide's HTML to this file (to host it elsewhere).")
    ] = None,
) -> None:
    """Print the commands that play the guide and load the style in Neo4j Browser."""
    base = url or api_base_url(get_settings())
    if write is not None:
        write.write_text(render_guide(style_url(base)), encoding="utf-8")
        typer.echo(f"guide written to {write}", err=True)
    typer.echo(f":play {guide_url(base)}")
    typer.echo(f":style {style_url(base)}")


@browser_app.command("style")
def browser_style() -> None:
    """Print the Browser style (GRASS), to paste after `:style` or save as a .grass file."""
    typer.echo(style_text(), nl=False)


# --- ctxnet keys -----------------------------------------------------------------------------
@keys_app.command("create")
def keys_create(
    user: Annotated[str, typer.Option(help="The user whose data the key opens.")],
    role: Annotated[Role, typer.Option(help="human or agent.")],
    agent: Annotated[str | None, typer.Option(help="The agent's id (for agent keys).")] = None,
    label: Annotated[str | None, typer.Option(help="A note for people.")] = None,
    scope: Annotated[
        list[str] | None,
        typer.Option(
            help="Limit the key to part of the user's knowledge: tag:<tag> or id:<note id>, repeated or "
            "comma-separated. A scoped key sees only the notes it names in every call, search included."
        ),
    ] = None,
) -> None:
    """Create a key; the secret is printed once, as the last line."""
    try:
        entity_scope = Scope.parse(scope or [])
    except InvalidInput as exc:
        raise typer.BadParameter(exc.message, param_hint="--scope") from exc

    async def work(settings: Settings) -> tuple[str, str]:
        async def inner(db: Database) -> tuple[str, str]:
            await migrate(db, embedder_dimension(settings))
            info, secret = await ApiKeys(db).create(
                user, role, agent_id=agent, label=label, scope=entity_scope
            )
            return info.id, secret

        return await _with_db(settings, inner)

    key_id, secret = _run(work)
    scoped = f", scope {entity_scope.describe()}" if entity_scope else ""
    typer.echo(
        f"created key {key_id} for user {user} ({role.value}{', agent ' + agent if agent else ''}{scoped})"
    )
    typer.echo("store it now; it cannot be shown again:")
    typer.echo(secret)


@keys_app.command("list")
def keys_list(
    user: Annotated[str | None, typer.Option(help="Only this user's keys.")] = None,
    revoked: Annotated[bool, typer.Option("--revoked", help="Include revoked keys.")] = False,
) -> None:
    """List keys (never their secrets)."""

    async def work(settings: Settings) -> None:
        async def inner(db: Database) -> None:
            for info in await ApiKeys(db).list(user, include_revoked=revoked):
                state = f"revoked {info.revoked_at:%Y-%m-%d %H:%M}" if info.revoked_at else "active"
                created = f"{info.created_at:%Y-%m-%d %H:%M}" if info.created_at else "?"
                agent = info.agent_id or "-"
                typer.echo(
                    f"{info.id}  {info.prefix}...  user={info.user_id}  role={info.role.value}  "
                    f"agent={agent}  created={created}  {state}"
                    + (f"  scope={info.scope.describe()}" if info.scope else "")
                )

        await _with_db(settings, inner)

    _run(work)


@keys_app.command("revoke")
def keys_revoke(key_id: Annotated[str, typer.Argument(help="The key id from `ctxnet keys list`.")]) -> None:
    """Revoke a key; requests with it get 401 from then on."""

    async def work(settings: Settings) -> str:
        return await _with_db(settings, lambda db: _revoke(db, key_id))

    typer.echo(f"revoked {_run(work)}")


async def _revoke(db: Database, key_id: str) -> str:
    return (await ApiKeys(db).revoke(key_id)).id


# --- ctxnet users ----------------------------------------------------------------------------
@users_app.command("forget")
def users_forget(
    user: Annotated[str, typer.Option(help="The user to erase.")],
    yes: Annotated[bool, typer.Option("--yes", help="Confirm: this cannot be undone.")] = False,
) -> None:
    """Delete every node of a user (knowledge, threads, sessions, keys, ...)."""
    if not yes:
        raise _fail("this deletes all of the user's data; add --yes to confirm")

    async def work(settings: Settings) -> int:
        return await _with_db(settings, lambda db: forget_user(db, user))

    typer.echo(f"deleted {_run(work)} nodes of user {user}")


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
            return await _with_db(settings, inner)
        finally:
            close = getattr(extractor, "close", None)
            if close is not None:
                await close()

    return _run(work)


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
        return await _with_db(settings, lambda db: SkillService(db).put(principal, starter_skills()))

    for skill, outcome in _run(work):
        typer.echo(f"{outcome:9} {skill['id']}  {skill['name']}")


# --- ctxnet maintenance ------------------------------------------------------------------------
@app.command("maintenance")
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
            return await _with_db(settings, inner)
        finally:
            close = getattr(extractor, "close", None)
            if close is not None:
                await close()

    typer.echo(json.dumps(_run(work), indent=2))


# --- ctxnet mcp ------------------------------------------------------------------------------
@app.command("mcp")
def mcp(
    transport: Annotated[str, typer.Option(help="stdio (an MCP client starts this) or http.")] = "stdio",
    url: Annotated[
        str | None, typer.Option(help="The API (default CTXNET_API_URL, else the local one).")
    ] = None,
    host: Annotated[str, typer.Option(help="Where the http transport listens.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="The http transport's port.")] = 8765,
) -> None:
    """Serve Context Network to MCP clients: search, remember, connect, recall, orient,
    catch_up, brief_me, sessions, pending actions, goals, skills and corrections as tools,
    calling the API with the key in CTXNET_API_KEY (never another user's data)."""
    from ctxnet.mcp_server import serve as serve_mcp

    if transport not in ("stdio", "http"):
        raise typer.BadParameter("stdio or http", param_hint="--transport")
    key = os.environ.get("CTXNET_API_KEY")
    if not key:  # never the development key: it is a person's, and an agent's writes must say so
        typer.secho(
            "set CTXNET_API_KEY to the agent's key (ctxnet keys create --role agent ...)", err=True, fg="red"
        )
        raise typer.Exit(2)
    serve_mcp(transport, url, key, host, port)


# --- ctxnet import -----------------------------------------------------------------------------
@app.command("import")
def import_(
    path: Annotated[Path, typer.Argument(help="A .jsonl or .csv file, or a folder of Markdown notes.")],
    url: Annotated[str | None, typer.Option(help="The API (default: CTXNET_API_URL, else local).")] = None,
    key: Annotated[
        str | None, typer.Option(help="An API key (default: CTXNET_API_KEY, else the dev key).")
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Check everything, write nothing.")] = False,
    resume: Annotated[bool, typer.Option("--resume", help="Skip the batches a killed run finished.")] = False,
    max_words: Annotated[int, typer.Option(help="Split notes longer than this (the API's limit).")] = 300,
    batch_size: Annotated[int, typer.Option(min=1, max=1000, help="Notes or edges per request.")] = 500,
) -> None:
    """Import notes and edges through the API (keys, dedupe, the journal apply as for agents):
    idempotent, resumable, every rejected record listed with file:line and the reason; exit
    code 1 when anything was rejected."""
    import json

    from ctxnet.client import AsyncClient
    from ctxnet.io.importer import run_import

    if not path.exists():
        raise typer.BadParameter(f"{path} does not exist", param_hint="PATH")

    async def work() -> dict[str, Any]:
        async with AsyncClient(url, key) as client:
            report = await run_import(
                path, client, max_words=max_words, dry_run=dry_run, resume=resume, batch_size=batch_size
            )
        return report.view()

    try:
        report = asyncio.run(work())
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="PATH") from None
    typer.echo(json.dumps(report, indent=2))
    if report["rejected"]:
        raise typer.Exit(1)


# --- ctxnet export -----------------------------------------------------------------------------
@app.command("export")
def export(
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="The JSONL file (default: stdout).")
    ] = None,
    url: Annotated[str | None, typer.Option(help="The API (default: CTXNET_API_URL, else local).")] = None,
    key: Annotated[
        str | None, typer.Option(help="API key (default: CTXNET_API_KEY, else the dev key).")
    ] = None,
    embeddings: Annotated[bool, typer.Option("--embeddings", help="Keep each note's vector.")] = False,
) -> None:
    """Export the key's user's knowledge (decisions, patterns, constraints, notes with their
    merges, edges) as JSONL that `ctxnet import` reads back."""
    import json

    from ctxnet.client import AsyncClient
    from ctxnet.io.exporter import run_export

    async def work(out: TextIO) -> dict[str, int]:
        async with AsyncClient(url, key) as client:
            return await run_export(client, out, embeddings=embeddings)

    if output is None:
        counts = asyncio.run(work(sys.stdout))
    else:  # written aside and moved in place: a failed export leaves no half a file
        partial = output.with_name(output.name + ".partial")
        with partial.open("w", encoding="utf-8") as out:
            counts = asyncio.run(work(out))
        partial.replace(output)
    typer.echo(json.dumps(counts), err=True)


# --- ctxnet serve ----------------------------------------------------------------------------
def _dev_key_file(settings: Settings) -> Path:
    return settings.data_dir / "dev-api-key"


async def _ensure_dev_key(db: Database, settings: Settings) -> tuple[str, bool]:
    """The development key kept in .data/dev-api-key; made on first start."""
    keys = ApiKeys(db, cache_seconds=0)
    path = _dev_key_file(settings)
    if path.is_file():
        secret = path.read_text(encoding="utf-8").strip()
        try:
            await keys.resolve(secret)
            return secret, False
        except Unauthenticated:
            pass  # revoked or from a wiped database: make a new one
    _, secret = await keys.create("dev", Role.HUMAN, label="development key made by `ctxnet serve`")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(secret + "\n")
    return secret, True


@app.command("serve")
def serve(
    neo4j: Annotated[
        bool, typer.Option(help="Start the local Neo4j first (and stop it on exit) if it is not running.")
    ] = True,
    dev_key: Annotated[bool, typer.Option(help="Make and print a development API key.")] = True,
    workers: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=64,
            help="API processes behind the port [default: CTXNET_API_WORKERS, or one per core up to 4].",
        ),
    ] = None,
) -> None:
    """Serve the API in the foreground; Ctrl-C stops it and the Neo4j it started."""
    import uvicorn

    from api.app import create_app

    settings = get_settings()
    if settings.embedder == "local":
        model = local_model(settings)
        try:
            if fetch_model(model, settings.resolved_models_dir, settings.maven_repository):
                typer.echo(f"fetched the embedding model {model.name}")
        except ContextNetworkError as exc:
            raise _fail(exc.message) from None
    local = LocalNeo4j(settings)
    started = False
    if neo4j and settings.neo4j_uri is None:
        typer.echo("starting Neo4j ..." if local.pid() is None else "Neo4j is already running")
        try:
            started = local.start()
        except ContextNetworkError as exc:
            raise _fail(exc.message) from None
        local.watch()  # reaped and logged at once if it dies under the API
        typer.echo(
            f"Neo4j Browser: {local.browser_url}  (user neo4j, password in {settings.local_password_file})"
        )
        typer.echo(f"Its guide: :play {guide_url(api_base_url(settings))}")
    try:
        if dev_key and settings.api_key_mode == "required":

            async def prepare(s: Settings) -> tuple[str, bool]:
                async def inner(db: Database) -> tuple[str, bool]:
                    await migrate(db, embedder_dimension(s))
                    return await _ensure_dev_key(db, s)

                return await _with_db(s, inner, wait=s.neo4j_startup_wait_seconds)

            secret, new = _run(prepare)
            typer.echo(f"{'New development' if new else 'Development'} API key (user dev, human): {secret}")
        workers = workers or settings.resolved_api_workers
        typer.echo(
            f"API on http://{settings.api_host}:{settings.api_port}  (docs at /docs, "
            f"{workers} worker process{'es' if workers > 1 else ''})"
        )
        sys.stdout.flush()
        if workers > 1:
            # Each worker builds its app from the environment; their metrics meet in one folder.
            metrics = settings.data_dir / "run" / "prometheus"
            shutil.rmtree(metrics, ignore_errors=True)
            metrics.mkdir(parents=True)
            os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(metrics)
        uvicorn.run(
            create_app(settings) if workers == 1 else "api.app:create_app",
            factory=workers > 1,
            workers=workers,
            host=settings.api_host,
            port=settings.api_port,
            log_config=None,
            access_log=False,
        )
    finally:
        if started:
            typer.echo("stopping the Neo4j this command started ...")
            local.stop()


if __name__ == "__main__":
    app()
