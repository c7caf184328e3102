"""Where an import stands: its :class:`Report` (what it did), the :class:`Progress` line it
prints, and the :class:`StateFile` of finished batches that ``--resume`` reads.

Shared by the notes' and edges' import (:mod:`ctxnet.io.importer`) and the replay of
conversation memory and sessions (:mod:`ctxnet.io.memory`).
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from ctxnet.client import ApiError
from ctxnet.io.sources import Record


@dataclass
class Report:
    """What an import did."""

    notes: int = 0
    edges: int = 0
    created: int = 0
    existing: int = 0
    merged: int = 0
    proposed: int = 0
    edges_created: int = 0
    edges_existing: int = 0
    skipped_batches: int = 0
    #: Notes an export said were archived: archived again once every edge is in.
    archived: list[str] = field(default_factory=list)
    #: Ids of this import's notes that dedupe folded into a twin: id -> the twin's id.
    folded: dict[str, str] = field(default_factory=dict)
    split: list[str] = field(default_factory=list)
    rejected: list[dict[str, str]] = field(default_factory=list)
    dry_run: bool = False
    #: Conversation memory and sessions (:mod:`ctxnet.io.memory`): records read, and what
    #: changed (threads, messages, insights, threadLinks, sessions, ended, carried, cleared,
    #: toolCalls).
    memory_records: int = 0
    memory: Counter[str] = field(default_factory=Counter)
    #: Records superseded by their own word ("Superseded", no link to what supersedes them):
    #: archived once every edge is in (the API makes a note superseded only by an edge).
    superseded: list[str] = field(default_factory=list)
    #: Files recognised as not records (decision record templates, index pages), and why.
    skipped: list[dict[str, str]] = field(default_factory=list)
    #: Decision records by the status they state, and by where their date came from.
    statuses: Counter[str] = field(default_factory=Counter)
    dated: Counter[str] = field(default_factory=Counter)
    #: Front-matter properties not kept (no room in a tag), by name.
    in_text: Counter[str] = field(default_factory=Counter)
    #: Why the import stopped before the end ("" when it finished): what landed is counted
    #: above, and ``--resume`` finishes it.
    failure: str = ""

    def refused(self, record: Record, error: ApiError) -> None:
        """``record`` rejected with the API's answer (its field, status and message), once."""
        field_ = (error.field or "record").split(".")[-1]
        said = {"where": record.where, "field": field_, "reason": f"{error.status} {error.message}"}
        if said not in self.rejected:
            self.rejected.append(said)

    def view(self) -> dict[str, Any]:
        """As printed at the end."""
        changed = self.created + self.merged + self.proposed + self.edges_created + sum(self.memory.values())
        return {
            "dryRun": self.dry_run,
            "notes": self.notes,
            "edges": self.edges,
            "created": self.created,
            "existing": self.existing,
            "merged": self.merged,
            "proposed": self.proposed,
            "edgesCreated": self.edges_created,
            "edgesExisting": self.edges_existing,
            "skippedBatches": self.skipped_batches,
            "folded": self.folded,
            "split": self.split,
            "memoryRecords": self.memory_records,
            "memory": {kind: n for kind, n in sorted(self.memory.items()) if n},
            "rejected": self.rejected,
            "skipped": self.skipped,
            "supersededWithoutLink": self.superseded,
            "decisionStatuses": dict(sorted(self.statuses.items())),
            "decisionDates": dict(sorted(self.dated.items())),
            "propertiesInText": dict(sorted(self.in_text.items())),
            "changedNothing": changed == 0 and not self.dry_run and not self.failure,
        } | ({"failed": self.failure, "resume": "run it again with --resume"} if self.failure else {})


class Progress:
    """A progress line on a terminal (rate, ETA), JSON lines elsewhere, per phase (notes,
    edges, memory): each phase's rate and ETA are its own records at its own pace, since edges
    go far faster than notes are embedded (``done``/``total`` count the whole import)."""

    def __init__(self, totals: dict[str, int], out: TextIO) -> None:
        self.totals = {k: v for k, v in totals.items() if v}
        self.total = sum(self.totals.values())
        self.done = 0
        self.out = out
        self.phase: dict[str, tuple[int, float]] = {}  # phase -> (done, when it began)
        self.terminal = out.isatty()

    def advance(self, n: int, what: str) -> None:
        """``n`` more records of phase ``what`` done."""
        now = time.monotonic()
        done, began = self.phase.get(what, (0, now))
        done += n
        self.phase[what] = (done, began)
        self.done += n
        rate = done / max(now - began, 1e-9)
        total = self.totals.get(what, done)
        eta = max(total - done, 0) / rate if rate else 0.0
        if self.terminal:
            self.out.write(
                f"\r{what}: {done}/{total} ({100 * done / max(total, 1):.0f} %) {rate:.0f}/s, "
                f"ETA {eta:.0f} s (all: {self.done}/{self.total})   "
            )
        else:
            line = {"step": what, "done": self.done, "total": self.total, "stepDone": done,
                    "stepTotal": total, "perSecond": round(rate, 1), "etaSeconds": round(eta, 1)}  # fmt: skip
            self.out.write(json.dumps(line) + "\n")
        self.out.flush()


class StateFile:
    """Which batches of this source are done (``--resume`` skips them)."""

    def __init__(self, path: Path, fingerprint: str, resume: bool) -> None:
        self.path = path
        self.fingerprint = fingerprint
        self.done: set[str] = set()
        #: Notes of the finished batches that dedupe folded into a twin (their edges go to it).
        self.folded: dict[str, str] = {}
        if resume and path.exists():
            saved = json.loads(path.read_text())
            if saved.get("fingerprint") == fingerprint:
                self.done = set(saved.get("done", []))
                self.folded = dict(saved.get("folded", {}))

    def finish(self, batch: str, folded: dict[str, str] | None = None) -> None:
        """Mark a batch done, durably (written atomically, so a kill mid-write loses nothing)."""
        self.done.add(batch)
        self.folded |= folded or {}
        temporary = self.path.with_suffix(".tmp")
        saved = {"fingerprint": self.fingerprint, "done": sorted(self.done), "folded": self.folded}
        temporary.write_text(json.dumps(saved))
        temporary.replace(self.path)
