"""Bulk import through the API (``ctxnet import``): notes first, then edges, in batches.

The importer is an ordinary API client (the running local API with the development key by
default; ``--url`` and ``--key`` for any deployment), so keys, tenancy, dedupe, the journal,
corrections and validation apply exactly as for agents.

* **Checked first.** Every record is validated by the API's own request models before
  anything is sent; a record they refuse, and an edge whose end is neither in the import nor
  among the user's notes, is **rejected** with its file:line and the reason, and the rest
  goes on. ``--dry-run`` stops there and reports.
* **Batches, overlapped.** Notes go in batches of :data:`BATCH` through
  ``POST /v1/knowledge/batch``, two in flight, so the server embeds one batch while it
  writes the other. Edges follow once every note is in (an edge to a note later in the
  import is resolved, not dropped). A batch the API refuses as a whole is sent again record
  by record, so only the records at fault are rejected.
* **Idempotent.** Notes and edges are keyed by id: a second run creates nothing and says so.
* **Resumable.** Each finished batch is written to a state file beside the source; killed
  at any point and run again with ``--resume``, the import skips the finished batches and
  ends with the same graph as an uninterrupted run (a batch cut off mid-flight is simply
  sent again: keyed by id, it changes nothing twice).
* **Seen.** A progress line with rate and ETA on a terminal; JSON lines otherwise. The exit
  code says whether anything was rejected.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import quote

from pydantic import ValidationError

from ctxnet.client import AsyncClient, Call, NotFound, error_of
from ctxnet.io.memory import MEMORY_KINDS, RECORD_FAULTS, Replay, check_memory
from ctxnet.io.pacing import Pacer, paced
from ctxnet.io.progress import Progress, Report, StateFile
from ctxnet.io.sources import Record, read
from ctxnet.wire.knowledge.edges import EdgeBatchItemIn
from ctxnet.wire.knowledge.notes import NoteIn
from ctxnet.wire.limits import LIMITS, ServerLimits
from ctxnet.wire.project import DecisionIn, DescribedIn

#: What an export writes beside a record's own fields (the import's, or derived).
EXPORT_ONLY = frozenset(
    {
        "status",
        "createdAt",
        "updatedAt",
        "mergeCount",
        "merges",
        "kind",
        "supersededBy",
        "supersedes",
        "recordedBy",
    }
)
#: Project context records of an export, each recorded through its own route.
ENTRY_KINDS = {"decision": "/v1/decisions", "pattern": "/v1/patterns", "constraint": "/v1/constraints"}
#: The most notes (or edges) per request (``--batch-size``); each batch is cut to the
#: server's pace below that (:mod:`ctxnet.io.pacing`).
BATCH = 500


def _problem(exc: ValidationError) -> tuple[str, str]:
    first = exc.errors()[0]
    return ".".join(str(p) for p in first["loc"]) or "record", first["msg"]


def check(
    records: list[Record], limits: ServerLimits | None = None
) -> tuple[list[Record], list[Record], list[Record], Report]:
    """The notes (with project entries last), edges and memory records the API's models
    accept (within the server's ``limits``, when given: a note's words), and the report of the
    rest; archived notes are listed in the report, to archive once imported."""
    context = {LIMITS: limits} if limits is not None else None
    report = Report()
    notes: list[Record] = []
    edges: list[Record] = []
    memory: list[Record] = []
    entries: list[Record] = []
    archived = report.archived
    seen: dict[str, str] = {}
    edges_seen: set[tuple[str, str, str]] = set()
    for record in records:
        if record.problem is not None:
            report.rejected.append({"where": record.where, "field": "record", "reason": record.problem})
            continue
        if record.kind in ("skip", "inText", "status"):  # a template or index page; properties in text
            if record.kind == "skip":
                report.skipped.append({"where": record.where, "reason": str(record.extra["reason"])})
            elif record.kind == "inText":
                report.in_text.update(record.data)
            else:  # the API makes a note superseded only by a supersedes edge: archived, said so
                report.superseded.append(str(record.data["id"]))
                report.archived.append(str(record.data["id"]))
            continue
        if record.kind == "decision":
            report.statuses[str(record.extra.get("stated") or "unstated")] += 1
            report.dated[str(record.extra.get("dated") or "none (the day of the import)")] += 1
        try:
            if record.kind in MEMORY_KINDS:
                check_memory(record)
                memory.append(record)
                continue
            if record.kind in ENTRY_KINDS:
                model = DecisionIn if record.kind == "decision" else DescribedIn
                given = {k: v for k, v in record.data.items() if k not in EXPORT_ONLY}
                was_archived = record.data.get("status") == "archived"
                record.data = model.model_validate(given, context=context).model_dump(
                    mode="json", by_alias=True, exclude_none=True
                )
                entries.append(record)
                if was_archived and record.data.get("id"):
                    archived.append(str(record.data["id"]))
                continue
            if record.kind == "note":
                was_archived = record.data.get("status") == "archived"
                record.data = {k: v for k, v in record.data.items() if k not in EXPORT_ONLY}
                if not record.data.get("id"):  # keyed by what it says, so a second run finds it
                    said = json.dumps([record.data.get("title"), record.data.get("content")])
                    record.data["id"] = f"note-{hashlib.sha256(said.encode()).hexdigest()[:20]}"
                note = NoteIn.model_validate(record.data, context=context)
                record.data = note.model_dump(mode="json", by_alias=True, exclude_none=True)
                note_id = str(record.data.get("id", ""))
                if note_id and note_id in seen:
                    why = f"id {note_id!r} appears twice (first at {seen[note_id]})"
                    report.rejected.append({"where": record.where, "field": "id", "reason": why})
                    continue
                if note_id:
                    seen[note_id] = record.where
                    if was_archived:  # only once accepted: archived again after the edges
                        archived.append(note_id)
                if record.notes and record.where not in report.split:
                    report.split.append(record.where)
                notes.append(record)
            else:
                edge = EdgeBatchItemIn.model_validate(record.data)
                record.data = edge.model_dump(mode="json", by_alias=True, exclude_none=True)
                stated = (
                    str(record.data["sourceId"]),
                    str(record.data["type"]),
                    str(record.data["targetId"]),
                )
                if stated not in edges_seen:  # two records stating one relation: one edge
                    edges_seen.add(stated)
                    edges.append(record)
        except ValidationError as exc:
            at, reason = _problem(exc)
            report.rejected.append({"where": record.where, "field": at, "reason": reason})
    report.notes, report.edges = len(notes) + len(entries), len(edges)
    report.rejected = list({tuple(sorted(r.items())): r for r in report.rejected}.values())
    report.memory_records = len(memory)
    return notes + entries, edges, memory, report


async def run_import(
    source: Path,
    client: AsyncClient,
    *,
    max_words: int = 300,
    dry_run: bool = False,
    resume: bool = False,
    state: Path | None = None,
    progress: TextIO = sys.stderr,
    on_batch: Callable[[str], None] | None = None,
    batch_size: int = BATCH,
) -> Report:
    """Import ``source`` (a JSONL or CSV file, or a folder of Markdown) for the client's user."""
    records = list(read(source, max_words))
    # Records past the server's word limit are rejected one by one here, not a batch at a time there.
    notes, edges, memory, report = check(records, (await client.limits()).server())
    report.dry_run = dry_run
    known = {str(n.data["id"]) for n in notes if n.data.get("id")}
    missing = sorted({str(e.data[k]) for e in edges for k in ("sourceId", "targetId")} - known)
    absent = set()
    for note_id in missing:  # ends outside the import must be the user's notes already
        try:  # or ids dedupe folded into one (an earlier import's): the edge goes to the twin
            path = f"/v1/knowledge/{quote(note_id, safe='')}"
            found = await client.request_json("GET", path, params={"followMerges": "true"})
            if found["id"] != note_id:
                report.folded[note_id] = str(found["id"])
        except NotFound:
            absent.add(note_id)
    kept_edges = []
    for edge in edges:
        gone = [k for k in ("sourceId", "targetId") if edge.data[k] in absent]
        if gone:
            why = f"no note {edge.data[gone[0]]!r} in the import or among yours"
            report.rejected.append({"where": edge.where, "field": gone[0], "reason": why})
        else:
            kept_edges.append(edge)
    report.edges = len(kept_edges)
    if dry_run:
        return report
    # The batches' numbers mean these records cut at this size: a resume needs both the same.
    me = await client.request_json("GET", "/v1/me")  # a state file is one user's, at one API
    content = json.dumps(
        [client.url, me["userId"], batch_size, *(r.data for r in notes + kept_edges + memory)], sort_keys=True
    )
    digest = hashlib.sha256(content.encode()).hexdigest()
    states = StateFile(state or source.with_name(source.name + ".ctxnet-import.json"), digest, resume)
    report.folded |= states.folded  # notes a killed run saw folded into twins
    meter = Progress({"notes": len(notes), "edges": len(kept_edges), "memory": len(memory)}, progress)
    try:
        await _send_all(client, notes, kept_edges, memory, report, states, meter, batch_size, on_batch)
    except Exception as exc:  # the report says what landed, and the state file lets --resume finish
        report.failure = f"{type(exc).__name__}: {exc}".strip()[:500] or type(exc).__name__
    if progress.isatty():
        progress.write("\n")
    return report


async def _send_all(
    client: AsyncClient,
    notes: list[Record],
    kept_edges: list[Record],
    memory: list[Record],
    report: Report,
    states: StateFile,
    meter: Progress,
    batch_size: int,
    on_batch: Callable[[str], None] | None,
) -> None:
    """Notes, project entries, edges, statuses and memory, in that order (module docstring)."""

    async def send(kind: str, name: str, batch: list[Record]) -> None:
        await _write(client, kind, batch, report)
        states.finish(name, report.folded)
        meter.advance(len(batch), "edges" if kind == "edges" else "notes")
        if on_batch is not None:
            on_batch(name)

    def skipped(kind: str) -> Callable[[list[Record]], None]:
        def skip(batch: list[Record]) -> None:
            report.skipped_batches += 1
            meter.advance(len(batch), kind)

        return skip

    plain = [n for n in notes if n.kind == "note"]
    pacer = Pacer(batch_size)
    await paced("notes", plain, pacer, states.done, lambda n, b: send("notes", n, b), skipped("notes"))
    for i, entry in enumerate(n for n in notes if n.kind in ENTRY_KINDS):
        name = f"{entry.kind}:{i}"
        if name in states.done:
            skipped("notes")([entry])
        else:
            await send(entry.kind, name, [entry])
    # An edge of a note dedupe folded into a twin is the twin's (one to itself: nothing).
    folded = report.folded
    for edge in kept_edges:
        for end in ("sourceId", "targetId"):
            edge.data[end] = folded.get(edge.data[end], edge.data[end])
    kept_edges = [e for e in kept_edges if e.data["sourceId"] != e.data["targetId"]]
    await paced("edges", kept_edges, Pacer(batch_size, first=batch_size), states.done,
                lambda n, b: send("edges", n, b), skipped("edges"))  # fmt: skip
    # After the edges: a supersedes edge would flip an archived status back.
    for status, ids in (("archived", report.archived),):
        for note_id in ids:
            if f"{status}:{note_id}" in states.done:
                continue
            target = report.folded.get(note_id, note_id)
            answer = await client.send(
                Call("PATCH", f"/v1/knowledge/{quote(target, safe='')}", {"status": status})
            )
            if answer.status_code in (404, 409, 422):  # not there (a proposal), or held: said, not fatal
                reason = f"not {status}: {answer.status_code} {error_of(answer).message}"
                report.rejected.append({"where": f"{status} {note_id}", "field": "status", "reason": reason})
            elif answer.status_code >= 400:
                raise error_of(answer)
            states.finish(f"{status}:{note_id}")
    if memory:  # after the notes: insights name the notes made from them
        await Replay(client, report, states).run(memory)
        meter.advance(len(memory), "memory")


async def _write(client: AsyncClient, kind: str, batch: list[Record], report: Report) -> None:
    """One batch; refused as a whole, its records one by one (only those at fault are rejected)."""
    if kind in ENTRY_KINDS:
        [entry] = batch
        answer = await client.send(Call("POST", ENTRY_KINDS[kind], entry.data))
        if answer.status_code in RECORD_FAULTS:
            report.refused(entry, error_of(answer))
        elif answer.status_code >= 400:
            raise error_of(answer)  # the service's fault, not the record's: the batch is not done
        elif answer.status_code == 201:
            report.created += 1
        elif answer.status_code == 202:
            report.proposed += 1
        else:
            report.existing += 1
        return
    path = "/v1/knowledge/batch" if kind == "notes" else "/v1/connections/batch"
    response = await client.send(Call("POST", path, {"items": [r.data for r in batch]}))
    body = response.json() if response.status_code < 400 else None
    if body is not None and "results" in body:
        _count(kind, body["results"], report, batch)
        return
    if len(batch) == 1 and body is not None:  # a 202: held back by a person's correction
        report.proposed += 1
        return
    if response.status_code not in RECORD_FAULTS and body is None:
        raise error_of(response)  # the service's fault, not the records': the batch is not done
    if len(batch) == 1:
        report.refused(batch[0], error_of(response))
        return
    for record in batch:  # refused (or held) as a whole: record by record, to find which
        await _write(client, kind, [record], report)


def _count(kind: str, results: list[dict[str, Any]], report: Report, batch: list[Record]) -> None:
    for record, result in zip(batch, results, strict=True):
        if kind == "edges":
            if result["created"]:
                report.edges_created += 1
            elif result.get("proposal"):  # held by a person's word: waits for them
                report.proposed += 1
            else:
                report.edges_existing += 1
        elif result["outcome"] == "proposed":
            report.proposed += 1
        elif result["outcome"] == "merged":
            if result.get("alreadyMerged"):  # folded by an earlier run: nothing changed now
                report.existing += 1
            else:
                report.merged += 1
            if record.data.get("id"):
                report.folded[str(record.data["id"])] = str(result["mergedInto"])
        elif result["outcome"] == "created":
            report.created += 1
        else:
            report.existing += 1
