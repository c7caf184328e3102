"""The ledger: what must stay done when an older dump is restored, kept outside the database.

A restore (``ctxnet db restore``) gives back the whole database as the dump holds it, and with
it every key revoked since, every user forgotten since and every text ``POST /v1/forget``
took away since. The ledger says what happened after the dump, so that the restore carries it
out again before the API serves (``ctxnet/neo4j_backup.py``, docs/operations.md).

It is one file in the data directory, ``<data_dir>/ledger.jsonl``, readable by this user
only: one JSON object a line, appended and never rewritten. Every append opens the file with
``O_APPEND``, takes an exclusive ``flock``, writes the whole line in one ``write`` and
``fsync``s it, so the API's worker processes and the CLI append at once without tearing or
interleaving lines, and an acknowledged entry survives a crash. An entry holds ids and
times, never a stored text: ``{"kind", "at", ...}`` with

* ``revoke``: ``keyId``, ``userId``: a key was revoked;
* ``desk-end``: ``keyId`` (``userId``): the desk session held on a key ended (a sign-out, or a
  sign-in that replaced it);
* ``user-forget``: ``userId``: every node of a user was deleted (``ctxnet users forget``);
* ``forget``: ``userId``, ``record``: a run of ``POST /v1/forget``, as its owner records it
  (:class:`graph.project.forget.ForgetLedger`; opaque here);
* ``backup``: ``sha256``, ``file``, ``bytes``: ``ctxnet db backup`` wrote this dump, while the
  database was stopped: every entry above the line is in the dump already, or is carried out
  again harmlessly;
* ``restore``: ``sha256``, ``known``, ``reapplied``: a dump was restored.

Each entry is appended after what it records has committed: one whose write failed is never
in the ledger, and one that committed before a backup stopped the database is either above
the backup's line or, appended a moment later, below it and carried out again for nothing.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graph.core.settings import Settings

log = logging.getLogger(__name__)

REVOKE = "revoke"
DESK_END = "desk-end"
USER_FORGET = "user-forget"
FORGET = "forget"
BACKUP = "backup"
RESTORE = "restore"
#: The entries a restore carries out again; the others mark dumps and restores.
CARRIED_OUT = (REVOKE, DESK_END, USER_FORGET, FORGET)


@dataclass(frozen=True)
class Entry:
    """One line of the ledger: its kind, when, what it names, and its line number (from 1)."""

    kind: str
    at: str
    fields: dict[str, Any]
    line: int

    def describe(self) -> str:
        """One line for people (ids and times only, as the entry holds)."""
        user = self.fields.get("userId")
        key = self.fields.get("keyId")
        when = self.at[:19].replace("T", " ")
        what = {
            REVOKE: f"key {key} of user {user} revoked",
            DESK_END: f"the desk session on key {key} ended",
            USER_FORGET: f"user {user} forgotten whole (ctxnet users forget)",
            FORGET: f"a POST /v1/forget run of user {user}",
            BACKUP: f"backup {self.fields.get('file')} (sha256 {str(self.fields.get('sha256'))[:12]}...)",
            RESTORE: f"restore of a dump (sha256 {str(self.fields.get('sha256'))[:12]}...)",
        }.get(self.kind, self.kind)
        return f"{when} UTC  {what}"


class Ledger:
    """The ledger file of one data directory (see the module's docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def of(cls, settings: Settings) -> Ledger:
        """The ledger of ``settings``' data directory: ``<data_dir>/ledger.jsonl``."""
        return cls(settings.data_dir / "ledger.jsonl")

    # --- what is recorded ----------------------------------------------------------------
    def revoked(self, key_id: str, user_id: str) -> None:
        """A key was revoked."""
        self.append(REVOKE, keyId=key_id, userId=user_id)

    def desk_ended(self, key_id: str, user_id: str | None = None) -> None:
        """The desk session a key held ended (signed out, or replaced by a new sign-in)."""
        self.append(DESK_END, keyId=key_id, **({"userId": user_id} if user_id else {}))

    def user_forgotten(self, user_id: str) -> None:
        """Every node of a user was deleted."""
        self.append(USER_FORGET, userId=user_id)

    def forgot(self, user_id: str, record: dict[str, Any]) -> None:
        """A ``POST /v1/forget`` run finished (:class:`graph.project.forget.ForgetLedger`)."""
        self.append(FORGET, userId=user_id, record=record)

    def backed_up(self, sha256: str, file: Path, size: int) -> None:
        """A dump was written (while the database was stopped)."""
        self.append(BACKUP, sha256=sha256, file=str(file), bytes=size)

    def restored(self, sha256: str, known: bool, reapplied: int) -> None:
        """A dump was restored, and this many entries carried out again."""
        self.append(RESTORE, sha256=sha256, known=known, reapplied=reapplied)

    def append(self, kind: str, **fields: Any) -> None:
        """Append one entry, durably, beside any other process appending at once."""
        entry = {"kind": kind, "at": datetime.now(UTC).isoformat(timespec="microseconds"), **fields}
        line = (json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                line = b"\n" + line  # a line torn by a crash stays alone, unreadable, never glued
            os.write(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)  # releases the lock

    # --- what is read back -----------------------------------------------------------------
    def entries(self) -> list[Entry]:
        """Every readable entry, in the order appended; a line that is not one (torn by a
        crash mid-append) is logged and skipped."""
        return list(self._read())

    def _read(self) -> Iterator[Entry]:
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return
        with os.fdopen(fd, "rb") as handle:
            fcntl.flock(handle, fcntl.LOCK_SH)  # no half-written line of an append under way
            lines = handle.read().splitlines()
        for number, raw in enumerate(lines, start=1):
            try:
                entry = json.loads(raw)
                kind, at = str(entry.pop("kind")), str(entry.pop("at"))
            except (ValueError, KeyError, AttributeError, TypeError):
                if raw.strip():
                    log.warning("ledger %s: line %d is not an entry; skipped", self.path, number)
                continue
            yield Entry(kind, at, entry, number)

    def since_dump(self, sha256: str) -> tuple[Entry | None, list[Entry]]:
        """The backup entry of the dump with this digest (its first, ``None`` when the ledger
        does not know the dump) and the entries to carry out again on it: those below that
        line, or every one when the dump is unknown (its time is not known)."""
        entries = self.entries()
        backup = next((e for e in entries if e.kind == BACKUP and e.fields.get("sha256") == sha256), None)
        after = [e for e in entries if e.kind in CARRIED_OUT and (backup is None or e.line > backup.line)]
        return backup, after
