"""Search that reads dates, through the real API, on LongMemEval's oracle set.

The oracle set's 10,866 turns are stored as ``bench/retrieval.py`` stores them (each a note,
its session as ``sourceRef``, its session's date as ``validFrom``), in a fresh database,
and each of its 470 questions is asked as an agent would ask it on the day it was asked:
``topK`` 5, ``collapseBy: "sourceRef"``, ``asOf`` the end of that day. Side by side, on the
same notes in the same run: the plain search (and the plain search with no ``asOf``, the
service's answer before valid time), with ``readDates``, with ``recency`` 0.1, and with both.
Figures per question type (recall-any@5, recall-all@5, nDCG@5 over sessions,
``bench/retrieval_metrics.py``), the knowledge-update ordering (the latest evidence session
in the top 5 and above every older one) and each setting's search p50.

``python -m bench.dated_search`` (about 12 minutes: 5 to store, the rest to search);
``--url URL --key KEY`` measures a user that already holds the same notes instead.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from typing import Any

import httpx

from bench.common import save
from bench.corpus import private_api
from bench.date_ranking import day_end
from bench.longmemeval import Question, load_oracle
from bench.oracle_figures import knowledge_update_ordered
from bench.retrieval import USER, store
from bench.retrieval_metrics import K, mean, scores, session_of

#: Each setting: the search body's date fields (``asOf`` is the day asked unless ``None``).
SETTINGS: dict[str, dict[str, Any]] = {
    "no asOf (before valid time)": {"asOf": None},
    "asOf the day asked": {},
    "+ readDates": {"readDates": True},
    "+ recency 0.1": {"recency": 0.1},
    "+ readDates + recency 0.1": {"readDates": True, "recency": 0.1},
}


def ask(client: httpx.Client, q: Question, extra: dict[str, Any]) -> tuple[list[str], float]:
    """The sessions of the question's top 5, and the seconds the search took."""
    assert q.asked is not None
    body: dict[str, Any] = {
        "query": q.question, "topK": K, "mode": "hybrid", "expandConnections": False,
        "collapseBy": "sourceRef", "asOf": day_end(q.asked.date()).isoformat(), **extra,
    }  # fmt: skip
    if body["asOf"] is None:
        del body["asOf"]
    t0 = time.perf_counter()
    answer = client.post("/v1/search", json=body)
    took = time.perf_counter() - t0
    answer.raise_for_status()
    return [session_of(h["node"]["id"]) for h in answer.json()["hits"]], took


def measure(client: httpx.Client, questions: list[Question]) -> dict[str, Any]:
    """Each setting's figures by question type (and over all), its knowledge-update ordering
    and its search p50 in ms."""
    table: dict[str, Any] = {}
    for label, extra in SETTINGS.items():
        rows: dict[str, list[dict[str, float]]] = defaultdict(list)
        ordered: list[bool] = []
        took: list[float] = []
        for q in questions:
            sessions, seconds = ask(client, q, extra)
            took.append(seconds)
            row = scores(sessions, q.supporting)
            rows[q.type].append(row)
            rows["all"].append(row)
            if q.type == "knowledge-update":
                record = {"dates": {session: day.isoformat() for session, day in q.dates}}
                ordered.append(knowledge_update_ordered(record, sessions))
        took.sort()
        figures = table[label] = {
            "by_type": {t: mean(r) | {"questions": len(r)} for t, r in sorted(rows.items())},
            "knowledge_update_ordered": round(sum(ordered) / len(ordered), 3),
            "p50_ms": round(1000 * took[len(took) // 2], 1),
        }
        by_type = figures["by_type"]
        print(
            f"{label:32} all@5 {by_type['all']['all']:.3f}  "
            f"temporal all@5 {by_type['temporal-reasoning']['all']:.3f}  "
            f"KU ordered {figures['knowledge_update_ordered']:.3f}  p50 {figures['p50_ms']} ms",
            flush=True,
        )
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--url", help="An API whose user already holds the oracle set's notes.")
    parser.add_argument("--key", help="That user's key.")
    args = parser.parse_args()
    turns, questions = load_oracle()
    if args.url:
        headers = {"Authorization": f"Bearer {args.key}"}
        with httpx.Client(base_url=args.url, headers=headers, timeout=600) as c:
            table = measure(c, questions)
    else:
        with private_api("ctxnet-bench-dated-", USER, timeout=600) as (_, c, _, _):
            store(c, turns, valid_from=True)
            table = measure(c, questions)
    save("dated_search", {"questions": len(questions), "settings": table})


if __name__ == "__main__":
    main()
