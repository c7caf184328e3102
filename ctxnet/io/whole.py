"""A whole user out and back through the API: ``ctxnet export --all`` writes everything the
key's user owns (``GET /v1/export/all``) as JSONL, and ``ctxnet import`` of such a file
restores it into the key's user, which must hold nothing (``/v1/restore``).

The file: the header line (``{"record": "export", "format": 1, ...}``), a line per node and
per relationship, and an end line ``{"record": "end", "records": N, "sha256": ...}`` holding
how many records came between and the SHA-256 of every line before it, so a file cut short
or changed is refused before anything is sent, with the line at fault.

An import reads the file twice: once to check all of it (JSON, record kinds, refs, counts,
checksum, each record against the API's own model), once to send it in batches. The server
writes each batch in one transaction and counts what it wrote, so a killed import is
finished by ``--resume`` (same file) or undone by ``--discard``; until then the user refuses
other writes, saying so.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from pydantic import ValidationError

from ctxnet.client import AsyncClient, Conflict
from ctxnet.wire.io import RestoreRecordIn
from graph.core.errors import InvalidInput
from graph.io.format import FORMAT
from graph.io.restore import checked_batch

#: Tries of an export the user's own writes interrupt (409 on the cursor).
TRIES = 3
#: A batch of records: at most this many, and about this many bytes of JSON.
BATCH_RECORDS = 2_000
BATCH_BYTES = 1_500_000


class ExportFileError(ValueError):
    """The file is not a whole export this import can restore; the message names the line."""


def line_of(record: dict[str, Any]) -> str:
    """A record as one line of the file."""
    return json.dumps(record, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"


async def export_all(client: AsyncClient, out: TextIO) -> dict[str, Any]:
    """Write the client's user, whole, to ``out``; what it wrote (counts, checksum)."""
    for attempt in range(TRIES):
        with tempfile.TemporaryFile("w+", encoding="utf-8") as spool:
            try:
                counts = await _pages(client, spool)
            except Conflict as exc:
                if exc.field == "cursor" and attempt < TRIES - 1:
                    continue  # the user wrote meanwhile: an export is one moment, start again
                raise
            spool.seek(0)
            shutil.copyfileobj(spool, out)
            return counts
    raise AssertionError("unreachable")  # pragma: no cover


async def _pages(client: AsyncClient, spool: TextIO) -> dict[str, Any]:
    digest = hashlib.sha256()
    records = 0
    header: dict[str, Any] = {}
    async for record in client.iter_json("/v1/export/all"):
        text = line_of(record)
        digest.update(text.encode())
        spool.write(text)
        if record["record"] == "export":
            header = record
        else:
            records += 1
    end = {"record": "end", "records": records, "sha256": digest.hexdigest()}
    spool.write(line_of(end))
    kept = ("userId", "seq", "nodes", "relationships")
    return {k: header.get(k) for k in kept} | {"records": records, "sha256": end["sha256"]}


def is_whole_export(path: Path) -> bool:
    """Whether ``path`` is a file ``ctxnet export --all`` wrote (its first line says so)."""
    if not path.is_file():
        return False
    with path.open(encoding="utf-8", errors="replace") as handle:
        first = handle.readline()
    try:
        head = json.loads(first)
    except ValueError:
        return False
    return isinstance(head, dict) and head.get("record") == "export" and "format" in head


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    with path.open(encoding="utf-8") as handle:
        yield from enumerate(handle, start=1)


def check_file(path: Path) -> tuple[dict[str, Any], str, int]:
    """The header, checksum and record count of a whole export, after checking all of it;
    :class:`ExportFileError` naming the first line at fault otherwise."""
    digest = hashlib.sha256()
    header: dict[str, Any] | None = None
    refs: set[str] = set()
    nodes: Counter[str] = Counter()
    types: Counter[str] = Counter()
    end: tuple[int, dict[str, Any]] | None = None
    records = 0
    try:
        for number, text in _lines(path):
            if end is not None:
                raise ExportFileError(f"line {number}: a line after the end record")
            record = _parse(number, text)
            if header is None:
                header = _header(number, record)
            elif record.get("record") == "end":
                end = (number, record)
                continue
            else:
                _check_record(number, record, refs, nodes, types)
                records += 1
            digest.update(text.encode())
    except UnicodeDecodeError as exc:
        raise ExportFileError(f"the file is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    if header is None:
        raise ExportFileError("line 1: the file is empty")
    if end is None:
        raise ExportFileError(f"line {records + 2}: the file ends before its end record: it was cut short")
    number, last = end
    if last.get("records") != records or last.get("sha256") != digest.hexdigest():
        raise ExportFileError(
            f"line {number}: the end record's count or checksum does not match the lines before it: the file "
            "was changed or cut after it was exported"
        )
    for what, counted, stated in (
        ("nodes", nodes, header["nodes"]),
        ("relationships", types, header["relationships"]),
    ):
        if dict(counted) != {k: v for k, v in stated.items() if v}:
            raise ExportFileError(
                f"line 1: the header states {stated} {what}; the file holds {dict(counted)}"
            )
    return header, digest.hexdigest(), records


def _parse(number: int, text: str) -> dict[str, Any]:
    try:
        record = json.loads(text)
    except ValueError as exc:
        raise ExportFileError(f"line {number}: not JSON ({exc})") from None
    if not isinstance(record, dict):
        raise ExportFileError(f"line {number}: not a JSON object")
    return record


def _header(number: int, record: dict[str, Any]) -> dict[str, Any]:
    if record.get("record") != "export" or "format" not in record:
        raise ExportFileError(f"line {number}: not the header of `ctxnet export --all`")
    if record["format"] != FORMAT:
        raise ExportFileError(f"line {number}: format {record['format']}; this ctxnet reads format {FORMAT}")
    if not isinstance(record.get("nodes"), dict) or not isinstance(record.get("relationships"), dict):
        raise ExportFileError(f"line {number}: the header lacks its counts (nodes, relationships)")
    return record


def _check_record(
    number: int, record: dict[str, Any], refs: set[str], nodes: Counter[str], types: Counter[str]
) -> None:
    try:
        checked = RestoreRecordIn.model_validate(record)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"])
        raise ExportFileError(f"line {number}: {where or 'the record'}: {error['msg']}") from None
    try:  # the server's own checks: labels and types of the format, values a property holds
        checked_batch([record], "", "")
    except InvalidInput as exc:
        raise ExportFileError(f"line {number}: {exc.message}") from None
    if checked.record == "node":
        if types:
            raise ExportFileError(f"line {number}: a node after the relationships (nodes come first)")
        if checked.ref in refs:
            raise ExportFileError(f"line {number}: node {checked.ref} is in the file twice")
        refs.add(str(checked.ref))
        nodes[(checked.labels or [""])[0]] += 1
    else:
        missing = [end for end in (checked.start, checked.end) if end not in refs]
        if missing:
            raise ExportFileError(f"line {number}: the relationship names node {missing[0]}, not in the file")
        types[str(checked.type)] += 1


def _batches(path: Path, skip: int) -> Iterator[tuple[int, list[dict[str, Any]]]]:
    """The file's records from record ``skip`` on, in batches with their offsets."""
    batch: list[dict[str, Any]] = []
    size = 0
    offset = skip
    index = 0
    for number, text in _lines(path):
        if number == 1:
            continue
        record = json.loads(text)
        if record.get("record") == "end":
            break
        index += 1
        if index <= skip:
            continue
        batch.append(record)
        size += len(text)
        if len(batch) >= BATCH_RECORDS or size >= BATCH_BYTES:
            yield offset, batch
            offset += len(batch)
            batch, size = [], 0
    if batch:
        yield offset, batch


async def restore(client: AsyncClient, path: Path, *, resume: bool = False) -> dict[str, Any]:
    """Restore the whole export at ``path`` into the client's user; the report."""
    header, sha256, records = check_file(path)
    state = await client.request_json("GET", "/v1/restore")
    if state["restoring"] and not (resume and state.get("sha256") == sha256):
        why = (
            "of another file" if resume else f"({state['recordsDone']} of {state['records']} records written)"
        )
        raise ExportFileError(
            f"a restore of this user is under way {why}: `ctxnet import FILE --resume` with the file it "
            "began with finishes it, `ctxnet import FILE --discard` removes what it wrote"
        )
    if state["restoring"]:
        restore_id, done = state["restoreId"], int(state["recordsDone"])
    else:
        body = {"header": header, "sha256": sha256, "records": records}
        begun = await client.request_json("POST", "/v1/restore", body)
        restore_id, done = begun["restoreId"], 0
    resumed_at = done
    rewritten = sent = 0
    for offset, batch in _batches(path, done):
        answer = await client.request_json(
            "POST", "/v1/restore/batches", {"restoreId": restore_id, "offset": offset, "records": batch}
        )
        rewritten += int(answer.get("rewritten", 0))
        sent += 1
    finished: dict[str, Any] = await client.request_json(
        "POST", "/v1/restore/finish", {"restoreId": restore_id}
    )
    report = {"restored": True, "records": records, "batches": sent} | finished
    if resumed_at:
        report["resumedAt"] = resumed_at
    if finished["userId"] != header["userId"]:
        report["userIdRewritten"] = {"from": header["userId"], "to": finished["userId"], "values": rewritten}
    return report


async def discard(client: AsyncClient) -> dict[str, Any]:
    """Discard the unfinished restore of the client's user."""
    answer: dict[str, Any] = await client.request_json("DELETE", "/v1/restore")
    return answer
