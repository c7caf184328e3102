"""The newest value first: does the service put a knowledge update's latest session above the
older ones without losing the rest? ``python -m bench.ku_order TAPE``.

Replays the 470 questions as an agent asks on the day (``asOf`` + ``readDates`` +
``recency`` 0.1) from a tape of ``bench.fusion_replay capture`` with the search's own
ranking, its near ties told newer-first (``graph.knowledge.near_ties``) or not, then tries
re-rankings offline on the ranking without that rule: inside the top 5, a hit moves above an
older hit it resembles (cosine of the two notes at or above ``tau``, bge-small) whose score
is at most ``margin`` above its own (tau 0, margin 0.05 is the service's rule). Prints, for
each (tau, margin), nDCG@5 over all questions and by type, and the knowledge-update ordering
of ``bench/oracle_figures.py`` (the latest evidence session in the top 5 and above every
older one). all@5 and any@5 cannot move: the top 5 keep their members.

Then every hybrid and fulltext row ``bench.findings`` measures, replayed with the service's
rule applied to no search, to a hybrid search that asks for time (the service), and to every
search: all@5 / nDCG@5 of each row, and the ordering of both ways of asking the 470.
Figures in docs/retrieval.md.
"""

from __future__ import annotations

import asyncio
import pickle
import sys
from collections import defaultdict
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from api.dto.knowledge import search_query
from bench import fusion_replay as replay
from bench.date_ranking import day_end
from bench.findings import AGENT_WAYS, figures
from bench.fusion_variants import VARIANTS
from bench.longmemeval import Question, load_oracle
from bench.retrieval_metrics import K, scores, session_of
from ctxnet.wire.knowledge.search import SearchIn
from graph.core.embeddings import LOCAL_MODELS, LocalEmbedder
from graph.core.principals import Principal, Role
from graph.core.settings import Settings
from graph.knowledge import near_ties
from graph.knowledge import retrieval as retrieval_module
from graph.knowledge import search as search_module
from graph.knowledge.models import SearchQuery
from graph.knowledge.retrieval import RetrievalService

Hit = dict[str, Any]
GRID = [(tau, margin) for tau in (0.8, 0.7, 0.6, 0.0) for margin in (0.05, 0.1, 0.2, 0.3)]
#: Which searches get their near ties told newer-first, by label.
POLICIES: dict[str, Callable[[SearchQuery], bool]] = {
    "no search": lambda _: False,
    "a hybrid search asking for time (the service)": near_ties.asks_for_time,
    "every search": lambda _: True,
}


def replaying(tape: replay.Tape) -> RetrievalService:
    """The service answering from ``tape`` with the search's own ranking."""
    search_module.run_rows = tape.replay  # type: ignore[attr-defined]
    retrieval_module.note_view = replay._viewed  # type: ignore[attr-defined]
    tape.fusion = list(VARIANTS.values())[-1]  # the search's own ranking
    return replay.service_of(Settings(), replay.NoDatabase())


async def answers_of(
    service: RetrievalService, name: str, questions: list[Question], body: dict[str, Any]
) -> list[list[Hit]]:
    """Each question's hits (notes with their scores), asked of ``service`` as findings asks."""
    out = []
    for q in questions:
        asked = {"asOf": day_end(q.asked.date()).isoformat()} if q.asked else {}
        query = search_query(
            SearchIn.model_validate(
                {"query": q.question, "topK": K, "expandConnections": False} | body | asked
            )
        )
        found = await service.search(Principal(replay.USERS[name], Role.HUMAN), query)
        out.append([h["node"] | {"score": h["score"]} for h in found["hits"]])
    return out


async def top_hits(tape: replay.Tape, policy: str) -> list[tuple[Question, list[Hit]]]:
    """The 470 questions' hits asked with dates, near ties told for the searches of ``policy``."""
    service = replaying(tape)
    retrieval_module.asks_for_time = POLICIES[policy]  # type: ignore[attr-defined,assignment]
    questions = load_oracle()[1]
    body = {"mode": "hybrid", **AGENT_WAYS["asOf + readDates + recency 0.1"]}
    return list(zip(questions, await answers_of(service, "470", questions, body), strict=True))


async def policies(tape: replay.Tape) -> None:
    """Every hybrid and fulltext row of findings, for each policy: all@5 / nDCG@5, and the
    knowledge-update ordering of the 470's rows."""
    service = replaying(tape)
    for policy, applies in POLICIES.items():
        retrieval_module.asks_for_time = applies  # type: ignore[attr-defined,assignment]
        cells = []
        for name, label, questions, body in replay.ways():
            hits = await answers_of(service, name, questions, body)
            rankings = [[session_of(h["id"]) for h in found] for found in hits]
            row = figures(rankings, questions, None)["all"]
            cell = f"{name} {label}: {row['all']:.3f}/{row['ndcg']:.3f}"
            if name == "470":
                ku = [
                    ordered(q, r)
                    for q, r in zip(questions, rankings, strict=True)
                    if q.type == "knowledge-update"
                ]
                cell += f" KU {np.mean(ku):.3f}"
            cells.append(cell)
        print(f"near ties newer-first for {policy}:\n  " + "\n  ".join(cells), flush=True)


def _when(hit: Hit) -> datetime:
    return datetime.fromisoformat(str(hit.get("validFrom") or hit["createdAt"]).replace("Z", "+00:00"))


def newer_first(hits: list[Hit], vectors: dict[str, np.ndarray], tau: float, margin: float) -> list[Hit]:
    out: list[Hit] = []
    for hit in hits:
        place = len(out)
        for i, other in enumerate(out):
            close = hit["score"] >= other["score"] * (1 - margin)
            if (
                close
                and _when(hit) > _when(other)
                and float(vectors[hit["id"]] @ vectors[other["id"]]) >= tau
            ):
                place = i
                break
        out.insert(place, hit)
    return out


def ordered(q: Question, ranking: list[str]) -> bool:
    dates = dict(q.dates)
    latest = max(dates, key=lambda s: dates[s])
    top = ranking[:K]
    return latest in top and all(top.index(s) > top.index(latest) for s in dates if s != latest and s in top)


def report(
    answers: list[tuple[Question, list[Hit]]],
    vectors: dict[str, np.ndarray],
    service: list[tuple[Question, list[Hit]]],
) -> None:
    """The grid's figures on ``answers`` (the ranking without the rule), and the service's."""
    for tau, margin in [(None, None), *GRID, ("service", None)]:
        rows: dict[str, list[float]] = defaultdict(list)
        ku = []
        for (q, hits), (_, served) in zip(answers, service, strict=True):
            if tau == "service":
                moved = served
            else:
                moved = hits if tau is None else newer_first(hits, vectors, float(tau), float(margin or 0))
            ranking = [session_of(h["id"]) for h in moved]
            ndcg = scores(ranking, q.supporting)["ndcg"]
            rows["all"].append(ndcg)
            rows[q.type].append(ndcg)
            if q.type == "knowledge-update":
                ku.append(ordered(q, ranking))
        by_type = "  ".join(f"{t[:12]} {np.mean(v):.3f}" for t, v in sorted(rows.items()) if t != "all")
        figures = f"nDCG@5 {np.mean(rows['all']):.3f}  KU ordered {np.mean(ku):.3f}"
        print(f"tau {tau} margin {margin}: {figures}  {by_type}")


def main() -> None:
    tape = replay.Tape()
    tape.rows, tape.nodes, tape.counts = pickle.loads(Path(sys.argv[1]).read_bytes())  # noqa: S301 (our own file)
    answers = asyncio.run(top_hits(tape, "no search"))
    served = asyncio.run(top_hits(tape, "a hybrid search asking for time (the service)"))
    notes = {h["id"]: f"{h['title']}\n{h['content']}" for _, hits in answers for h in hits}
    ids = sorted(notes)
    embedded = LocalEmbedder(LOCAL_MODELS["bge-small-en-v1.5"]).embed_sync([notes[i] for i in ids])
    report(answers, dict(zip(ids, np.array(embedded), strict=True)), served)
    asyncio.run(policies(tape))


if __name__ == "__main__":
    main()
