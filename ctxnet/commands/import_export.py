"""``ctxnet import`` and ``ctxnet export``: a user's memory in and out through the API, as any
client of it (:mod:`ctxnet.io`)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Annotated, Any, TextIO

import typer


# --- ctxnet import -----------------------------------------------------------------------------
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
    discard: Annotated[
        bool, typer.Option("--discard", help="A whole user's restore: remove what an unfinished one wrote.")
    ] = False,
) -> None:
    """Import notes and edges through the API (keys, dedupe, the journal apply as for agents):
    idempotent, resumable, every rejected record listed with file:line and the reason; exit
    code 1 when anything was rejected. A file of `ctxnet export --all` restores a whole user
    into the key's user, which must hold nothing (`--resume` finishes a killed restore,
    `--discard` removes what it wrote)."""
    import json

    from ctxnet.client import AsyncClient
    from ctxnet.io.importer import run_import
    from ctxnet.io.whole import is_whole_export

    if not path.exists():
        raise typer.BadParameter(f"{path} does not exist", param_hint="PATH")
    if discard or is_whole_export(path):
        typer.echo(
            json.dumps(_restore(path, url, key, resume=resume, discard=discard, dry_run=dry_run), indent=2)
        )
        return

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
    if report.get("failed"):  # stopped part-way: the report says what landed; --resume finishes
        raise typer.Exit(2)
    if report["rejected"]:
        raise typer.Exit(1)


def _restore(
    path: Path, url: str | None, key: str | None, *, resume: bool, discard: bool, dry_run: bool
) -> dict[str, Any]:
    """Restore (or discard the restore of, or with ``dry_run`` only check) a whole user's
    export: the report."""
    from ctxnet.client import ApiError, AsyncClient
    from ctxnet.io import whole

    if dry_run and not discard:
        try:
            header, sha256, records = whole.check_file(path)
        except whole.ExportFileError as exc:
            raise typer.BadParameter(str(exc), param_hint="PATH") from None
        counts = {"nodes": header["nodes"], "relationships": header["relationships"]}
        return {"dryRun": True, "from": header["userId"], "records": records, "sha256": sha256} | counts

    async def work() -> dict[str, Any]:
        async with AsyncClient(url, key, timeout=600) as client:
            if discard:
                return await whole.discard(client)
            return await whole.restore(client, path, resume=resume)

    try:
        return asyncio.run(work())
    except whole.ExportFileError as exc:
        raise typer.BadParameter(str(exc), param_hint="PATH") from None
    except ApiError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None


# --- ctxnet export -----------------------------------------------------------------------------
def export(
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="The JSONL file (default: stdout).")
    ] = None,
    url: Annotated[str | None, typer.Option(help="The API (default: CTXNET_API_URL, else local).")] = None,
    key: Annotated[
        str | None, typer.Option(help="API key (default: CTXNET_API_KEY, else the dev key).")
    ] = None,
    embeddings: Annotated[bool, typer.Option("--embeddings", help="Keep each note's vector.")] = False,
    as_of: Annotated[
        str | None, typer.Option("--as-of", help="Only what was true then (RFC 3339): valid time.")
    ] = None,
    as_known_at: Annotated[
        str | None,
        typer.Option("--as-known-at", help="The notes as the memory held them then (RFC 3339): record time."),
    ] = None,
    everything: Annotated[
        bool,
        typer.Option("--all", help="Everything the user owns, exactly (a person's key): see docs/import.md."),
    ] = False,
) -> None:
    """Export the key's user's knowledge (decisions, patterns, constraints, notes with their
    merges, edges) as JSONL that `ctxnet import` reads back; with `--as-of` / `--as-known-at`,
    as it was true, or held, then. With `--all`, everything the user owns, ids, times, vectors
    and the journal included, which `ctxnet import` restores into an empty user."""
    import json

    from ctxnet.client import AsyncClient
    from ctxnet.io.exporter import run_export
    from ctxnet.io.whole import export_all

    if everything and (embeddings or as_of or as_known_at):
        raise typer.BadParameter(
            "--all exports everything, now: it takes no --embeddings, --as-of, --as-known-at"
        )

    async def work(out: TextIO) -> dict[str, Any]:
        async with AsyncClient(url, key) as client:
            if everything:
                return await export_all(client, out)
            return await run_export(client, out, embeddings=embeddings, as_of=as_of, as_known_at=as_known_at)

    if output is None:
        counts = asyncio.run(work(sys.stdout))
    else:  # written aside and moved in place: a failed export leaves no half a file
        partial = output.with_name(output.name + ".partial")
        with partial.open("w", encoding="utf-8") as out:
            counts = asyncio.run(work(out))
        partial.replace(output)
    typer.echo(json.dumps(counts), err=True)
