"""``ctxnet serve`` (the API, with the local Neo4j and a development key) and ``ctxnet mcp``
(Context Network to MCP clients, through the API)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Annotated

import typer

from ctxnet.commands.runner import fail, run, with_db
from ctxnet.models import fetch_model
from ctxnet.neo4j_server import LocalNeo4j
from graph.core.browser_guide import api_base_url, guide_url
from graph.core.db import Database
from graph.core.embeddings import embedder_dimension, local_model
from graph.core.errors import ContextNetworkError, Unauthenticated
from graph.core.principals import ApiKeys, Role
from graph.core.schema import migrate
from graph.core.settings import Settings, get_settings


# --- ctxnet mcp ------------------------------------------------------------------------------
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
    from ctxnet.mcp_server import NO_KEY
    from ctxnet.mcp_server import serve as serve_mcp

    if transport not in ("stdio", "http"):
        raise typer.BadParameter("stdio or http", param_hint="--transport")
    key = os.environ.get("CTXNET_API_KEY")
    if not key:
        typer.secho(NO_KEY, err=True, fg="red")
        raise typer.Exit(2)
    serve_mcp(transport, url, key, host, port)


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
            raise fail(exc.message) from None
    local = LocalNeo4j(settings)
    started = False
    if neo4j and settings.neo4j_uri is None:
        typer.echo("starting Neo4j ..." if local.pid() is None else "Neo4j is already running")
        try:
            started = local.start()
        except ContextNetworkError as exc:
            raise fail(exc.message) from None
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

                return await with_db(s, inner, wait=s.neo4j_startup_wait_seconds)

            secret, new = run(prepare)
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
