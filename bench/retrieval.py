"""Retrieval quality through the real API: does search find the sessions that answer a question?

Two sets from LongMemEval (``bench/longmemeval.py`` fetches and reads them): its LongMemEval-S
subset (16 questions over 612 turns) and its oracle split (470 questions over 10,866 turns,
every question's evidence sessions in one memory, so each question must find its own among
all of them; one question is 0.2 points instead of 6.25).

As a new user would: each turn, cut at 250 words, is stored as a note through the API (the
service embeds it; dedupe off, so no turn folds into another; its session as ``sourceRef``;
on the oracle set its session's date as ``validFrom`` when the API takes one), and each
question is searched with ``topK: 5`` and no expansion, in each mode, with and without
``collapseBy: "sourceRef"``, once for each local embedder (a fresh database each). A hit
counts for the session its turn came from; the metrics (recall-any@5, recall-all@5, nDCG@5)
are in ``bench/retrieval_metrics.py``. Beside the service's modes, in the same process on
the same notes: plain Okapi BM25 (k1 1.5, b 0.75) over the same words (lower-cased ``\\w+``),
the keyword baseline a user could write in 30 lines. Figures are means over the questions.

On the oracle set each question's answers are kept too (:func:`gather`: its top 5 in each
mode, a deeper pool of sessions with their dates, a search for each event it compares) in
``bench/results/retrieval-oracle-questions.json``, from which ``bench/oracle_figures.py``
computes the figures by question type, the knowledge-update ordering and the date
re-ranking prototype (``python -m bench.oracle_figures`` again without a new run).

``python -m bench.retrieval [longmemeval-s] [longmemeval-oracle] [--embedder NAME]``
(about 6 minutes for the first, 15 to 40 for the second with one embedder; both sets and
both embedders by default) prints the tables and saves ``bench/results/retrieval.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import time
from collections.abc import Sequence
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from bench import oracle_figures
from bench.common import RESULTS, machine, private_neo4j, save
from bench.date_ranking import day_end
from bench.longmemeval import SDIST, WHEEL, Question, Turn, load_dataset, load_oracle
from bench.retrieval_metrics import BM25, WORD, K, distinct, mean, scores, session_of
from graph.core.db import Database
from graph.core.embeddings import LOCAL_MODELS
from graph.core.principals import ApiKeys, Role
from graph.core.settings import Settings
from graph.knowledge.time_words import read_question, window
from tests.support.servers import ApiProcess

__all__ = ["load_dataset", "load_oracle", "title"]

USER = "bench-retrieval"
MODES = ("fulltext", "vector", "hybrid")
#: The deepest collapsed hybrid search that stays within Neo4j's transaction memory on the
#: oracle set (10,866 notes of one user): at ``topK`` 20, a third of the questions answer 503.
POOL_TOP_K = 10
#: The uncollapsed hybrid search behind it (the same fusion pool of 80 per half), for the tail.
TAIL_TOP_K = 40
#: The embedder the service uses unless told otherwise (its answers' file has no suffix).
DEFAULT_EMBEDDER = "bge-small-en-v1.5"


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


def accepts_valid_from(client: httpx.Client) -> bool:
    """Whether the API takes ``validFrom`` on the notes of a batch (read from its OpenAPI document)."""
    doc = client.get("/openapi.json").json()
    body = doc["paths"]["/v1/knowledge/batch"]["post"]["requestBody"]["content"]["application/json"]
    seen: set[str] = set()

    def names(schema: Any) -> set[str]:
        if isinstance(schema, list):
            return set().union(*(names(s) for s in schema))
        if not isinstance(schema, dict):
            return set()
        if ref := schema.get("$ref"):
            if ref in seen:
                return set()
            seen.add(ref)
            return names(doc["components"]["schemas"][ref.rsplit("/", 1)[1]])
        found = set(schema.get("properties", {}))
        return found.union(*(names(v) for k, v in schema.items() if k != "properties"),
                           *(names(v) for v in schema.get("properties", {}).values()))  # fmt: skip

    return "validFrom" in names(body["schema"])


def day_tag(day: date) -> str:
    """The tag a dated turn's note carries: its session's day (``day:2023-05-20``). Tags are
    neither embedded nor searched for words; a search filtered by the tags of a span's days is
    a search of what was said in that span, which the API has no filter for (``asOf`` bounds
    the dates from above only)."""
    return f"day:{day.isoformat()}"


def store(client: httpx.Client, turns: list[Turn], valid_from: bool = False) -> float:
    """Every turn as a note, embedded by the service; a dated turn's note is tagged with its
    day (:func:`day_tag`) and, with ``valid_from``, true from its session's date. Returns the
    seconds it took."""
    t0 = time.perf_counter()
    for start in range(0, len(turns), 50):
        items = [
            {"id": t.id, "title": title(t.text), "content": t.text, "type": "fact", "source": "conversation",
             "sourceRef": t.session, "dedupe": False}
            | ({"tags": [day_tag(t.date.date())]} if t.date else {})
            | ({"validFrom": t.date.isoformat()} if valid_from and t.date else {})
            for t in turns[start : start + 50]
        ]  # fmt: skip
        client.post("/v1/knowledge/batch", json={"items": items}, timeout=600).raise_for_status()
    return time.perf_counter() - t0


def search(
    client: httpx.Client,
    query: str,
    top_k: int,
    mode: str = "hybrid",
    collapse: bool = True,
    as_of: datetime | None = None,
    tags: list[str] | None = None,
) -> list[Any]:
    """One search's hits (no expansion), ``asOf`` a time and filtered by tags if given."""
    body: dict[str, Any] = {"query": query, "topK": top_k, "mode": mode, "expandConnections": False}
    if collapse:
        body["collapseBy"] = "sourceRef"
    if as_of is not None:
        body["asOf"] = as_of.isoformat()
    if tags is not None:
        body["filters"] = {"tags": tags}
    answer = client.post("/v1/search", json=body)
    answer.raise_for_status()
    hits: list[Any] = answer.json()["hits"]
    return hits


def top_ids(client: httpx.Client, questions: list[Question], mode: str, collapse: bool) -> list[list[str]]:
    """Each question's top-k note ids in ``mode``, collapsed by source or not."""
    return [[h["node"]["id"] for h in search(client, q.question, K, mode, collapse)] for q in questions]


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


def bm25_rankings(turns: list[Turn], questions: list[Question], depth: int = 60) -> list[list[str]]:
    """Each question's best turns by plain BM25 over the same notes' words, as their sessions."""
    bm25 = BM25([f"{title(t.text)} {t.text}" for t in turns])
    return [[turns[i].session for i in bm25.top(q.question, depth)] for q in questions]


def bm25_baseline(turns: list[Turn], questions: list[Question]) -> dict[str, float]:
    """Plain BM25 over the same notes' words, in this process."""
    return mean(
        [scores(r, q.supporting) for r, q in zip(bm25_rankings(turns, questions), questions, strict=True)]
    )


def sessions(hits: list[Any], dates: dict[str, str]) -> list[list[Any]]:
    """Hits as ``[session, score, date]``, each session once at its best hit; the date is the
    note's ``validFrom`` when it has one, else the session's as the data gives it."""
    found: dict[str, list[Any]] = {}
    for h in hits:
        session = session_of(h["node"]["id"])
        if session not in found:
            found[session] = [session, h["score"], h["node"].get("validFrom") or dates.get(session)]
    return list(found.values())


def gather(client: httpx.Client, q: Question, dates: dict[str, str]) -> dict[str, Any]:
    """What the API answers for one question beyond its top 5, each a deeper pool of sessions
    (the collapsed hybrid top :data:`POOL_TOP_K`, then the further sessions of the uncollapsed
    top :data:`TAIL_TOP_K`): the question's as search ranks it today and ``asOf`` the day it was
    asked; for each span of time it names, the question within the span's window (by the
    notes' day tags); and for each event it compares, the event's words ``asOf`` the day asked
    (``bench/date_ranking.py`` re-ranks with them, keyed by window and by the part's words)."""
    fallbacks: list[str] = []

    def pool(text: str, as_of: datetime | None = None, tags: list[str] | None = None) -> list[list[Any]]:
        try:
            head = sessions(search(client, text, POOL_TOP_K, as_of=as_of, tags=tags), dates)
            deeper = sessions(search(client, text, TAIL_TOP_K, collapse=False, as_of=as_of, tags=tags), dates)
        except httpx.HTTPStatusError as error:
            if as_of is None or error.response.status_code != 503:
                raise
            # Some long questions asked asOf late May 2023 exhaust Neo4j's transaction memory
            # (503) at any topK; then the same searches without asOf, later sessions dropped here.
            fallbacks.append(f"{as_of.isoformat()} {text}")
            head, deeper = (
                [c for c in sessions(search(client, text, top_k, collapse=collapse, tags=tags), dates)
                 if not c[2] or datetime.fromisoformat(c[2]) <= as_of]
                for top_k, collapse in ((POOL_TOP_K, True), (TAIL_TOP_K, False))
            )  # fmt: skip
        held = {c[0] for c in head}
        return head + [c for c in deeper if c[0] not in held]

    assert q.asked is not None
    asked_end = day_end(q.asked.date())
    reading = read_question(q.question, q.asked)
    spans = sorted({window(span, q.asked, reading.told) for span in reading.spans})
    return {
        "id": q.id, "type": q.type, "question": q.question, "asked": q.asked.isoformat(),
        "supporting": sorted(q.supporting), "dates": {s: d.isoformat() for s, d in q.dates},
        "pool": pool(q.question),
        "pool_as_of": pool(q.question, asked_end),
        "windows": {f"{start}/{end}": pool(q.question, tags=[day_tag(start + timedelta(days=n))
                                                             for n in range((end - start).days)])
                    for start, end in spans},
        "parts": {p: pool(p, asked_end) for p in reading.parts},
        "asOf_failed": fallbacks,
    }  # fmt: skip


def crowd(base_url: str, settings: Settings, turns: list[Turn], unrelated: int = 40_000) -> None:
    """Other users beside the measured one: one stores copies of the same turns (embedded by
    the service), another ``unrelated`` notes of words drawn from the turns' vocabulary with
    random vectors (they share the indexes, and Lucene's term statistics)."""
    rng = np.random.default_rng(7)
    vocabulary = sorted({w.lower() for t in turns for w in WORD.findall(t.text)})
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
    model: str, turns: list[Turn], questions: list[Question], crowded: bool = False, detail: bool = False
) -> dict[str, Any]:
    """Store the turns in a fresh database through an API embedding with ``model``; measure.
    ``crowded``: then let other users store beside (:func:`crowd`) and measure again.
    ``detail``: keep each question's answers (:func:`gather`) under ``"questions"``."""
    with private_neo4j("ctxnet-bench-retrieval-") as (settings, env, local):
        local.start()
        api = ApiProcess(settings.data_dir / "api.log", {**env, "CTXNET_LOCAL_MODEL": model}).start()
        try:
            api.wait_ready()
            secret = asyncio.run(key(settings))
            with httpx.Client(
                base_url=api.base_url, headers={"Authorization": f"Bearer {secret}"}, timeout=60
            ) as c:
                valid_from = accepts_valid_from(c) and any(t.date for t in turns)
                stored = store(c, turns, valid_from)
                t0 = time.perf_counter()
                table, alone = measure(c, questions)
                figures: dict[str, Any] = {
                    "embedder": c.get("/ready").json()["embedder"],
                    "store_seconds": round(stored, 1),
                    "search_seconds": round(time.perf_counter() - t0, 1),
                    f"at_{K}": table,
                }
                if detail:
                    dates = {t.session: t.date.isoformat() for t in turns if t.date}
                    t0 = time.perf_counter()
                    records = [gather(c, q, dates) for q in questions]
                    for record, n in zip(records, range(len(questions)), strict=True):
                        record["ranked"] = {label: distinct([session_of(i) for i in ids[n]]) if "collapse"
                                            in label else [session_of(i) for i in ids[n]]
                                            for label, ids in alone.items()}  # fmt: skip
                    figures["gather_seconds"] = round(time.perf_counter() - t0, 1)
                    figures["dates_from"] = "validFrom" if valid_from else "the data, beside the notes"
                    figures["questions"] = records
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


def commit() -> str:
    """The checkout's commit, with ``+dirty`` when the service's code differs from it."""
    root = Path(__file__).resolve().parents[1]
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "graph", "api", "cypher"], cwd=root,
                           capture_output=True, text=True)  # fmt: skip
    return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


def print_table(label: str, run: dict[str, Any]) -> None:
    """The run's figures as the Markdown table docs/benchmarks.md shows."""
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
    print(f"| (none) | plain BM25, outside the service | {m['any']:.3f} | {m['all']:.3f} | {m['ndcg']:.3f} |")


def main(
    names: Sequence[str] = tuple(DATASETS), models: Sequence[str] = tuple(LOCAL_MODELS)
) -> dict[str, Any]:
    """Measure the named sets with the named embedders; the results file keeps the latest
    figures of each set. On the oracle set, each embedder's answers to every question go to
    ``retrieval-oracle-questions[-<embedder>].json`` and its figures by question type beside."""
    previous = RESULTS / "retrieval.json"
    figures: dict[str, Any] = json.loads(previous.read_text())["figures"] if previous.exists() else {}
    figures = {name: run for name, run in figures.items() if name in DATASETS}
    for name in names:
        label, load = DATASETS[name]
        turns, questions = load()
        oracle = name == "longmemeval-oracle"
        started = time.perf_counter()
        run: dict[str, Any] = {
            "dataset": {"source": label, "questions": len(questions), "turns": len(turns),
                        "sessions": len({t.session for t in turns})},
            "commit": commit(),
            "embedders": {
                model: run_embedder(model, turns, questions, crowded=name == "longmemeval-s", detail=oracle)
                for model in models
            },
            f"bm25_at_{K}": bm25_baseline(turns, questions),
        }  # fmt: skip
        run["seconds"] = round(time.perf_counter() - started)
        if oracle:
            bm25 = bm25_rankings(turns, questions)
            for model, measured in run["embedders"].items():
                records = measured.pop("questions")
                for record, ranking in zip(records, bm25, strict=True):
                    record["ranked"]["plain BM25"] = ranking[:K]
                    record["ranked"]["plain BM25, one hit per session"] = distinct(ranking)[:K]
                suffix = "" if model == DEFAULT_EMBEDDER else f"-{model}"
                save(f"retrieval-oracle-questions{suffix}", {"embedder": model, "commit": run["commit"],
                     "dates_from": measured["dates_from"], "questions": records})  # fmt: skip
                measured["by_question"] = oracle_figures.summarise(records)
                print(f"\n{label}, {model}\n" + oracle_figures.render(measured["by_question"]))
        figures[name] = run
        print(json.dumps(run, indent=2))
        print_table(label, run)
    path = save("retrieval", figures)
    print(f"retrieval figures on {machine()['cpu']} ({machine()['cores']} cores) -> {path}")
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m bench.retrieval", description=__doc__.split("\n")[0])
    parser.add_argument("sets", nargs="*", metavar="SET", help=f"of {', '.join(DATASETS)} (default: all)")
    parser.add_argument("--embedder", action="append", choices=list(LOCAL_MODELS),
                        help="only this local embedder (repeatable; default: every one)")  # fmt: skip
    arguments = parser.parse_args()
    if unknown := set(arguments.sets) - set(DATASETS):
        parser.error(f"unknown set {', '.join(sorted(unknown))}")
    main(arguments.sets or list(DATASETS), arguments.embedder or list(LOCAL_MODELS))
