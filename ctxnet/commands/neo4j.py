"""``ctxnet neo4j``: the project's own local Neo4j server (fetch, start, stop, status, wait)."""

from __future__ import annotations

from typing import Annotated

import typer

from ctxnet.commands.runner import fail, run, with_db
from ctxnet.neo4j_server import LocalNeo4j
from graph.core.errors import ContextNetworkError
from graph.core.settings import Settings, get_settings

neo4j_app = typer.Typer(help="The project's own local Neo4j server.", no_args_is_help=True)


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
        raise fail(exc.message) from None
    typer.echo(f"Neo4j {'fetched into' if fetched else 'already in'} {local.lib}")


@neo4j_app.command("start")
def neo4j_start() -> None:
    """Start the local Neo4j and wait until Bolt answers."""
    local = _local()
    try:
        started = local.start()
    except ContextNetworkError as exc:
        raise fail(exc.message) from None
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
        await with_db(settings, lambda db: db.ping(), wait=timeout)

    run(work)
    typer.echo(f"Neo4j answers at {get_settings().resolved_neo4j_uri}")
