"""Finding what matters, in one command: the retrieval goals on both LongMemEval sets,
through the real API, side by side with the halves of search and plain BM25.

Both sets are stored as ``bench/retrieval.py`` stores them (each turn a note of source
``conversation`` with its session as ``sourceRef``; the oracle set's turns true from their
session's date), each set as its own user of one private Neo4j and API, so each is searched
beside the other. Then:

* **the 16 questions** (LongMemEval-S subset), asked with ``topK`` 5 and nothing else, as a
  caller asks by default (a conversation's turns then count once), in each mode; and with
  ``collapseBy: "none"`` (every hit);
* **the 470 questions** (the oracle split) asked the way an agent asks on the day it asks:
  ``topK`` 5, ``asOf`` the end of that day, in each mode; then with ``readDates`` and
  ``recency`` 0.1 as well (``graph/knowledge/dated_search.py``). A hit counts for its
  session, so the top 5 are five distinct sessions, the paper's session-level recall.

Beside them, plain Okapi BM25 over the same words (its top 5 distinct sessions) and the
LongMemEval paper's best session-level rows, which needed an 8B LLM over every session at
index time. Per question type, recall-any@5, recall-all@5 and nDCG@5
(``bench/retrieval_metrics.py``); p50 of each search through the API.

``python -m bench.findings`` (about 20 minutes on 2 cores: 10 to store, the rest to
search); ``--url URL --key-s KEY --key-oracle KEY`` measures users that already hold the sets.
Saved as ``bench/results/findings.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from bench.common import machine, save
from bench.corpus import private_api, user_key
from bench.date_ranking import day_end
from bench.longmemeval import Question, load_dataset, load_oracle
from bench.retrieval import bm25_rankings, commit, store
from bench.retrieval_metrics import K, distinct, mean, scores, session_of
from ctxnet.neo4j_server import LocalNeo4j

MODES = ("hybrid", "fulltext", "vector")
#: The LongMemEval paper's best session-level rows on its own haystacks (recall-all@5, nDCG@5),
#: each with Llama 3.1 8B extracting facts from every session at index time.
PAPER = {"Contriever + facts (paper)": (0.762, 0.632), "Stella + facts (paper)": (0.732, 0.620)}
#: What the agent sends besides the question, by the label of each way of asking.
AGENT_WAYS: dict[str, dict[str, Any]] = {
    "asOf the day asked": {},
    "asOf + readDates + recency 0.1": {"readDates": True, "recency": 0.1},
}


def ask(client: httpx.Client, q: Question, body: dict[str, Any]) -> tuple[list[str], float]:
    """The sessions of the question's top 5, and the seconds the search took."""
    asked = {"asOf": day_end(q.asked.date()).isoformat()} if q.asked else {}
    t0 = time.perf_counter()
    answer = client.post("/v1/search", json={"query": q.question, "topK": K, "expandConnections": False}
                         | asked | body)  # fmt: skip
    took = time.perf_counter() - t0
    answer.raise_for_status()
    return [session_of(h["node"]["id"]) for h in answer.json()["hits"]], took


def figures(rankings: list[list[str]], questions: list[Question], took: list[float] | None) -> dict[str, Any]:
    """The metrics over all questions and by type, and the p50 in ms when timed."""
    rows: dict[str, list[dict[str, float]]] = defaultdict(list)
    for ranked, q in zip(rankings, questions, strict=True):
        row = scores(ranked, q.supporting)
        rows["all"].append(row)
        if q.type:
            rows[q.type].append(row)
    out: dict[str, Any] = {t: mean(r) | {"questions": len(r)} for t, r in sorted(rows.items())}
    if took:
        out["p50_ms"] = round(1000 * sorted(took)[len(took) // 2], 1)
    return out


def measure(client: httpx.Client, questions: list[Question], body: dict[str, Any]) -> dict[str, Any]:
    """One way of asking over every question."""
    answers = [ask(client, q, body) for q in questions]
    return figures([a[0] for a in answers], questions, [a[1] for a in answers])


def run(s_client: httpx.Client, oracle_client: httpx.Client) -> dict[str, Any]:
    """Every row of both tables."""
    s_turns, s_questions = load_dataset()
    o_turns, o_questions = load_oracle()
    result: dict[str, Any] = {"16": {}, "470": {}}
    for mode in MODES:
        result["16"][f"{mode}, as asked by default"] = measure(s_client, s_questions, {"mode": mode})
        result["16"][f"{mode}, collapseBy none"] = measure(
            s_client, s_questions, {"mode": mode, "collapseBy": "none"}
        )
        print(f"16: {mode} {result['16'][f'{mode}, as asked by default']['all']}", flush=True)
    for label, extra in AGENT_WAYS.items():
        for mode in MODES:
            row = result["470"][f"{mode}, {label}"] = measure(
                oracle_client, o_questions, {"mode": mode, **extra}
            )
            print(f"470: {mode}, {label}: {row['all']}", flush=True)
    for name, (turns, questions) in (("16", (s_turns, s_questions)), ("470", (o_turns, o_questions))):
        ranked = [distinct(r)[:K] for r in bm25_rankings(turns, questions)]
        result[name]["plain BM25 (top 5 distinct sessions)"] = figures(ranked, questions, None)
    return result


def render(result: dict[str, Any]) -> str:
    """Both tables as docs/retrieval.md shows them."""
    lines = [f"| 16 questions | any@{K} | all@{K} | nDCG@{K} | p50 |", "|---|---|---|---|---|"]
    for label, row in result["16"].items():
        a = row["all"]
        lines.append(
            f"| {label} | {a['any']:.3f} | {a['all']:.3f} | {a['ndcg']:.3f} | {row.get('p50_ms', '')} |"
        )
    types = sorted(t for t in next(iter(result["470"].values())) if t not in ("all", "p50_ms"))
    heads = " | ".join(f"{t} all@{K}" for t in types)
    lines += [
        "",
        f"| 470 questions | any@{K} | all@{K} | nDCG@{K} | {heads} | p50 |",
        "|---" * (len(types) + 5) + "|",
    ]
    for label, row in result["470"].items():
        a = row["all"]
        per_type = " | ".join(f"{row[t]['all']:.3f}" for t in types)
        lines.append(f"| {label} | {a['any']:.3f} | {a['all']:.3f} | {a['ndcg']:.3f} | {per_type} "
                     f"| {row.get('p50_ms', '')} |")  # fmt: skip
    for label, (recall_all, ndcg) in PAPER.items():
        lines.append(f"| {label} | | {recall_all:.3f} | {ndcg:.3f} |" + " |" * (len(types) + 1))
    return "\n".join(lines)


@contextmanager
def clients(
    url: str | None, key_s: str | None, key_oracle: str | None
) -> Iterator[tuple[httpx.Client, httpx.Client, LocalNeo4j | None]]:
    """Clients of the two users: given, or a private API's whose users get both sets stored
    (then with the private Neo4j, for what reads the database itself)."""
    if url:
        with (
            httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key_s}"}, timeout=600) as s,
            httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key_oracle}"}, timeout=600) as o,
        ):
            yield s, o, None
        return
    with private_api("ctxnet-bench-findings-", "bench-findings-oracle", timeout=600) as (local, o, _, _):
        secret = asyncio.run(user_key(local.settings, "bench-findings-s"))
        with httpx.Client(
            base_url=o.base_url, headers={"Authorization": f"Bearer {secret}"}, timeout=600
        ) as s:
            t0 = time.perf_counter()
            store(s, load_dataset()[0])
            store(o, load_oracle()[0], valid_from=True)
            print(f"stored both sets in {time.perf_counter() - t0:.0f} s", flush=True)
            yield s, o, local


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", help="An API whose users already hold both sets.")
    parser.add_argument("--key-s", help="The key of the user holding the 16 questions' turns.")
    parser.add_argument("--key-oracle", help="The key of the user holding the oracle set's turns.")
    args = parser.parse_args()
    t0 = time.perf_counter()
    with clients(args.url, args.key_s, args.key_oracle) as (s, o, _):
        result = run(s, o)
    print(render(result))
    path = save("findings", {"commit": commit(), "seconds": round(time.perf_counter() - t0), **result})
    print(f"on {machine()['cpu']} ({machine()['cores']} cores) -> {path}")


if __name__ == "__main__":
    main()
