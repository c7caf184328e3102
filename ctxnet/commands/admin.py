"""``ctxnet db``, ``ctxnet keys`` and ``ctxnet users``: an administrator's work on the store (the
schema, API keys, erasing a user), straight against Neo4j."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer

from ctxnet.commands.runner import fail, run, with_db
from graph.core.db import Database
from graph.core.embeddings import build_embedder, build_notify_embedder, embedder_dimension, embedder_model_id
from graph.core.errors import ContextNetworkError, InvalidInput
from graph.core.ledger import Ledger
from graph.core.principals import ApiKeys, Role, Scope
from graph.core.schema import check_schema, foreign_vectors, migrate, reembed
from graph.core.settings import Settings, get_settings
from graph.core.users import forget_user

db_app = typer.Typer(help="The database: its schema, vectors, backups.", no_args_is_help=True)
keys_app = typer.Typer(help="API keys (stored hashed in Neo4j).", no_args_is_help=True)
users_app = typer.Typer(help="Whole-user operations.", no_args_is_help=True)


# --- ctxnet db -------------------------------------------------------------------------------
@db_app.command("migrate")
def db_migrate() -> None:
    """Apply cypher/schema (idempotent) and check the vector index dimensions."""

    async def work(settings: Settings) -> None:
        async def inner(db: Database) -> None:
            report = await migrate(db, embedder_dimension(settings))
            for problem in report.problems:
                typer.echo(f"note: {problem}")

        await with_db(settings, inner)

    run(work)
    typer.echo("schema up to date")


@db_app.command("status")
def db_status() -> None:
    """Show whether the schema fits this build; exit 1 if not."""

    async def work(settings: Settings) -> list[str]:
        async def inner(db: Database) -> list[str]:
            problems = (await check_schema(db, embedder_dimension(settings))).problems
            foreign = await foreign_vectors(db, embedder_model_id(settings))
            return [*problems, foreign] if foreign else problems

        return await with_db(settings, inner)

    problems = run(work)
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
        second = build_notify_embedder(settings)  # threads' second vectors, for decisions' notices

        def progress(n: int) -> None:
            typer.echo(f"re-embedded {n} more")

        async def inner(db: Database) -> int:
            return await reembed(db, embedder, progress=progress, second=second)

        return await with_db(settings, inner)

    done = run(work)
    typer.echo(f"done: {done} vectors re-embedded (notes, insights, saved pages, corrections)")


@db_app.command("backup")
def db_backup(
    to: Annotated[
        Path | None,
        typer.Option("--to", help="The dump file to write (default: <data dir>/backups/neo4j-<time>.dump)."),
    ] = None,
) -> None:
    """Dump the local Neo4j's database to one file (neo4j-admin database dump): the server is
    stopped for it, as Community requires, and started again."""
    from ctxnet.neo4j_backup import backup
    from ctxnet.neo4j_server import LocalNeo4j

    try:
        done = backup(LocalNeo4j(get_settings()), to, say=typer.echo)
    except ContextNetworkError as exc:
        raise fail(exc.message) from None
    typer.echo(
        f"backup: {done.path} ({done.size:,} bytes; the database was offline {done.offline_seconds:.1f} s)"
    )


@db_app.command("restore")
def db_restore(
    dump: Annotated[Path, typer.Argument(help="A dump file `ctxnet db backup` wrote.")],
    yes: Annotated[
        bool, typer.Option("--yes", help="Replace the whole database (every user's memory).")
    ] = False,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Restore a dump the ledger does not know (not written by `ctxnet db backup` here), "
            "carrying out again every revocation and forget the ledger holds.",
        ),
    ] = False,
) -> None:
    """Replace the local Neo4j's database with a dump (neo4j-admin database load), then carry out
    again every key revocation, desk sign-out and forget the ledger (<data dir>/ledger.jsonl)
    holds since the dump, before the API can reach it. The server is stopped for the load, as
    Community requires, and started again."""
    from ctxnet.neo4j_backup import entries, restore
    from ctxnet.neo4j_server import LocalNeo4j

    if not yes:
        raise fail("a restore replaces the whole database, every user's memory in it: add --yes to go on")
    try:
        done = restore(LocalNeo4j(get_settings()), dump, say=typer.echo, force=force)
    except ContextNetworkError as exc:
        raise fail(exc.message) from None
    for entry in done.carried_out:
        typer.echo(f"  carried out again: {entry.describe()}")
    typer.echo(
        f"restored {done.path} (the database was offline {done.offline_seconds:.1f} s; "
        f"{entries(len(done.carried_out))} of the ledger carried out again)"
    )


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

        return await with_db(settings, inner)

    key_id, secret = run(work)
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
                    + (f"  label={json.dumps(info.label)}" if info.label else "")
                    + _desk(info.desk_until)
                )

        await with_db(settings, inner)

    run(work)


def _desk(until: int | None) -> str:
    """A key's open desk session, as ``keys list`` shows it."""
    if until is None or until <= time.time():
        return ""
    return f"  desk-session-until={datetime.fromtimestamp(until, UTC):%Y-%m-%d %H:%M}"


@keys_app.command("revoke")
def keys_revoke(key_id: Annotated[str, typer.Argument(help="The key id from `ctxnet keys list`.")]) -> None:
    """Revoke a key; requests with it get 401 from then on."""

    async def work(settings: Settings) -> str:
        return await with_db(settings, lambda db: _revoke(db, key_id, Ledger.of(settings)))

    typer.echo(f"revoked {run(work)}")


async def _revoke(db: Database, key_id: str, ledger: Ledger) -> str:
    """Revoke the key, and record it in the ledger: a restore of an older dump revokes it again."""
    return (await ApiKeys(db, ledger=ledger).revoke(key_id)).id


# --- ctxnet users ----------------------------------------------------------------------------
@users_app.command("forget")
def users_forget(
    user: Annotated[str, typer.Option(help="The user to erase.")],
    yes: Annotated[bool, typer.Option("--yes", help="Confirm: this cannot be undone.")] = False,
) -> None:
    """Delete every node of a user (knowledge, threads, sessions, keys, ...)."""
    if not yes:
        raise fail("this deletes all of the user's data; add --yes to confirm")

    async def work(settings: Settings) -> int:
        return await with_db(settings, lambda db: forget_user(db, user, ledger=Ledger.of(settings)))

    typer.echo(f"deleted {run(work)} nodes of user {user}")
