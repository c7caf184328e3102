"""The oracle set's figures from each question's saved answers (``bench/retrieval.py`` keeps
them in ``bench/results/retrieval-oracle-questions.json``): by question type, the
knowledge-update ordering, and the date re-ranking prototype (``bench/date_ranking.py``)
beside the service's own ranking.

* **By type**: recall-any@5, recall-all@5 and nDCG@5 of hybrid search collapsed by session
  (the top 5 distinct sessions) and of plain BM25, for each of LongMemEval's six types.
* **Knowledge-update ordering**: a knowledge-update question's evidence sessions hold a value
  and its later change; the share of those questions whose latest evidence session (by the
  session dates of the question's own record) is in the top 5 and ranks above every older
  one (an older one missing from the top 5 ranks below it; a missing latest one fails).
* **Date re-ranking**: each step of ``bench/date_ranking.py`` over the deeper pool the API
  returned, by type; a step changes only questions whose words it reads.

``python -m bench.oracle_figures [file]`` prints them again from the saved answers.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from bench.common import RESULTS
from bench.date_ranking import Candidate, rerank
from bench.retrieval_metrics import METRICS, K, mean, scores
from graph.knowledge.time_words import read_question, window

SERVICE = "hybrid, collapseBy sourceRef"
BASELINES = (SERVICE, "plain BM25", "plain BM25, one hit per session")
TYPES = ("single-session-user", "single-session-assistant", "single-session-preference", "multi-session",
         "knowledge-update", "temporal-reasoning")  # fmt: skip
#: The re-ranking strategies reported: the saved pool each starts from (as search ranks it
#: today, or ``asOf`` the day asked) and the steps of bench/date_ranking.py it takes.
STRATEGIES: dict[str, tuple[str, tuple[str, ...]]] = {
    "the API's deeper pool as ranked": ("pool", ()),
    "as of the day asked, on the client": ("pool", ("as_of",)),
    "asOf the day asked (the service)": ("pool_as_of", ()),
    "asOf + spans": ("pool_as_of", ("spans",)),
    "asOf + parts": ("pool_as_of", ("parts",)),
    "asOf + spans + parts": ("pool_as_of", ("spans", "parts")),
    "asOf + recency": ("pool_as_of", ("recency",)),
    "asOf + recency + spans + parts": ("pool_as_of", ("recency", "spans", "parts")),
}
Ranker = Callable[[dict[str, Any]], list[str]]


def _time(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


def candidates(pool: Sequence[Sequence[Any]]) -> list[Candidate]:
    """A saved pool (``[session, score, date]`` rows) as candidates."""
    return [Candidate(session, score, _time(day)) for session, score, day in pool]


def strategy(base: str, steps: Sequence[str]) -> Ranker:
    """A question's top sessions after re-ranking its saved ``base`` pool with ``steps``."""

    def ranked(record: dict[str, Any]) -> list[str]:
        asked = datetime.fromisoformat(record["asked"])
        reading = read_question(record["question"], asked)
        keys = sorted({"{}/{}".format(*window(span, asked, reading.told)) for span in reading.spans})
        try:
            parts = [candidates(record["parts"][p]) for p in reading.parts]
            windows = [candidates(record["windows"][key]) for key in keys]
        except KeyError as missing:
            message = f"{record['id']}: no saved search for {missing}; the parser changed, run again"
            raise SystemExit(message) from None
        return [c.session for c in rerank(candidates(record[base]), parts, windows, reading, asked, steps)]

    return ranked


def saved(label: str) -> Ranker:
    """A question's top sessions as the run saved them under ``label``."""
    return lambda record: list(record["ranked"][label])


def knowledge_update_ordered(record: dict[str, Any], ranking: Sequence[str]) -> bool:
    """Whether the latest evidence session is in the top k and above every older one."""
    dates = {s: datetime.fromisoformat(d) for s, d in record["dates"].items()}
    latest = max(dates, key=lambda s: dates[s])
    top = list(ranking[:K])
    if latest not in top:
        return False
    return all(top.index(s) > top.index(latest) for s in dates if s != latest and s in top)


def by_type(records: Sequence[dict[str, Any]], rank: Ranker) -> dict[str, dict[str, float]]:
    """Each type's metrics (and every question's, under ``all``) for one ranking."""
    rows: dict[str, list[dict[str, float]]] = {}
    for record in records:
        s = scores(rank(record), frozenset(record["supporting"]))
        rows.setdefault(record["type"], []).append(s)
        rows.setdefault("all", []).append(s)
    return {t: mean(r) | {"n": len(r)} for t, r in sorted(rows.items())}


def ku_ordering(records: Sequence[dict[str, Any]], rank: Ranker) -> dict[str, float]:
    """The knowledge-update ordering: its share, and how often the latest session is there at all."""
    ku = [r for r in records if r["type"] == "knowledge-update"]
    if not ku:
        return {"ordered": 0.0, "latest_in_top_k": 0.0, "n": 0}
    ordered = [knowledge_update_ordered(r, rank(r)) for r in ku]
    present = [max(r["dates"], key=lambda s: r["dates"][s]) in rank(r)[:K] for r in ku]
    return {"ordered": round(sum(ordered) / len(ku), 3), "latest_in_top_k": round(sum(present) / len(ku), 3),
            "n": len(ku)}  # fmt: skip


def same_day(record: dict[str, Any]) -> bool:
    """Whether every evidence session of the question is dated on the day it was asked."""
    day = datetime.fromisoformat(record["asked"]).date()
    return all(datetime.fromisoformat(d).date() == day for d in record["dates"].values())


def by_dates(records: Sequence[dict[str, Any]], rank: Ranker) -> dict[str, dict[str, float]]:
    """Temporal-reasoning questions' metrics, those with every evidence session dated on the
    day asked apart from the others (recency favours the first by construction of the set)."""
    temporal = [r for r in records if r["type"] == "temporal-reasoning"]
    groups = {
        "same day": [r for r in temporal if same_day(r)],
        "earlier": [r for r in temporal if not same_day(r)],
    }
    return {
        name: mean([scores(rank(r), frozenset(r["supporting"])) for r in group]) | {"n": len(group)}
        for name, group in groups.items()
        if group
    }


def summarise(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Every figure of the oracle set's questions, from their saved answers."""
    rankers = {label: saved(label) for label in BASELINES} | {
        name: strategy(base, steps) for name, (base, steps) in STRATEGIES.items()
    }
    read = [read_question(r["question"], datetime.fromisoformat(r["asked"])) for r in records]
    reached: dict[str, dict[str, int]] = {}
    for record, reading in zip(records, read, strict=True):
        counts = reached.setdefault(record["type"], {"questions": 0, "spans": 0, "parts": 0})
        counts["questions"] += 1
        counts["spans"] += bool(reading.spans)
        counts["parts"] += bool(reading.parts)
    return {
        "by_type": {name: by_type(records, rank) for name, rank in rankers.items()},
        "knowledge_update_ordering": {name: ku_ordering(records, rank) for name, rank in rankers.items()},
        "temporal_by_dates": {name: by_dates(records, rank) for name, rank in rankers.items()},
        "questions_read": reached,
    }


def _cells(m: dict[str, float]) -> str:
    return " | ".join(f"{m[x]:.3f}" for x in METRICS)


def render(summary: dict[str, Any]) -> str:
    """The figures as the Markdown tables docs/retrieval.md shows."""
    lines = [f"By question type (any@{K} / all@{K} / nDCG@{K}):", "",
             "| Type | n | hybrid, collapseBy sourceRef | | | plain BM25 | | "
             "| BM25, one hit per session | | |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    tables = summary["by_type"]
    types = [t for t in TYPES if t in tables[SERVICE]]  # all six, unless a subset was run
    for t in (*types, "all"):
        row = [_cells(tables[label][t]) for label in BASELINES]
        lines.append(f"| {t} | {tables[SERVICE][t]['n']} | " + " | ".join(row) + " |")
    lines += [
        "",
        "Knowledge-update ordering (latest evidence session in the top 5, above the older ones):",
        "",
    ]
    lines += ["| Ranking | ordered | latest in top 5 |", "|---|---|---|"]
    for name, m in summary["knowledge_update_ordering"].items():
        lines.append(f"| {name} | {m['ordered']:.3f} | {m['latest_in_top_k']:.3f} |")
    lines += ["", f"Date re-ranking (all@{K} by type; temporal-reasoning in full):", ""]
    short = [t.replace("single-session-", "ss-") for t in types]
    lines += ["| Ranking | " + " | ".join(short) + " | all | temporal any / all / nDCG |",
              "|---|" + "---|" * (len(types) + 2)]  # fmt: skip
    for name in (SERVICE, *STRATEGIES):
        m = tables[name]
        cells = " | ".join(f"{m[t]['all']:.3f}" for t in (*types, "all"))
        temporal = _cells(m["temporal-reasoning"]) if "temporal-reasoning" in m else "-"
        lines.append(f"| {name} | {cells} | {temporal} |")
    split = summary["temporal_by_dates"]
    groups = list(split[SERVICE])
    lines += ["", "Temporal reasoning by where its evidence sessions are dated (all@5): "
              + ", ".join(f"{g}: {split[SERVICE][g]['n']} questions" for g in groups), "",
              "| Ranking | " + " | ".join(groups) + " |", "|---|" + "---|" * len(groups)]  # fmt: skip
    for name in (SERVICE, *STRATEGIES):
        lines.append(f"| {name} | " + " | ".join(f"{split[name][g]['all']:.3f}" for g in groups) + " |")
    read = summary["questions_read"]
    lines += ["", "Questions whose words the parser reads (spans / parts): "
              + ", ".join(f"{t} {read[t]['spans']}/{read[t]['parts']} of {read[t]['questions']}"
                          for t in types)]  # fmt: skip
    return "\n".join(lines)


def load(path: Path) -> list[dict[str, Any]]:
    """The saved answers of a run."""
    records: list[dict[str, Any]] = json.loads(path.read_text())["figures"]["questions"]
    return records


if __name__ == "__main__":
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else RESULTS / "retrieval-oracle-questions.json"
    print(render(summarise(load(source))))
