"""Fusion variants replayed offline: both halves of every hybrid and fulltext search
``bench.findings`` asks, captured once, then ranked again in Python by each variant (its
fusion, and the filler check of a keyword or hybrid ranking) and scored as findings scores.

``capture`` stores both sets as ``bench.findings`` does, runs the service in this process
against that database, and keeps, for every search query it runs, both halves'
rankings (ids, scores, sources) and every candidate note; ``replay`` answers the same
searches from that file, the ranking done by the variant named, the rest of the service
(collapse, the top k, dated ranking) unchanged. Replayed with the search's own ranking, the
figures are a real run's (checked against two, to 0.001 of nDCG@5), so a variant's figures
are what a run would give. No Neo4j is needed to replay.

``python -m bench.fusion_replay capture --out F`` (a private Neo4j and API, both sets stored
as findings stores them: 10 to 20 minutes on 2 cores) then ``python -m bench.fusion_replay
replay F [VARIANTS.py]`` (:mod:`bench.fusion_variants` by default; about 40 s a variant).
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import hashlib
import importlib.util
import json
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

from api.dto.knowledge import search_query
from bench import fusion_variants
from bench.findings import AGENT_WAYS, clients, figures
from bench.longmemeval import Question, load_dataset, load_oracle
from bench.retrieval_metrics import K, session_of
from ctxnet.wire.knowledge.search import SearchIn
from graph.core import db as core_db
from graph.core.embeddings import build_embedder
from graph.core.principals import Principal, Role
from graph.core.settings import Settings
from graph.core.vectors import VectorPlanConfig
from graph.knowledge import retrieval as retrieval_module
from graph.knowledge import search as search_module
from graph.knowledge.retrieval import RetrievalService
from graph.knowledge.search import SEARCH_QUERIES, TenantSizes
from graph.knowledge.views import note_view

#: A fusion: (vector hits, keyword hits, the query's parameters, the notes by id) to the ranking.
Fusion = Callable[
    [list[dict[str, Any]], list[dict[str, Any]], dict[str, Any], dict[str, Any]], list[dict[str, Any]]
]
#: What a search query's answer on the tape does not depend on: the vector (kept by its first
#: components), valid time "now" (a later replay asks for another now), what only fusion reads.
IGNORED = {"vector", "vectorWeight", "runaway", "validAt", "words", "separators", "checked"}
IGNORED |= {"fillerAllowed", "fillerSpan"}
USERS = {"16": "bench-findings-s", "470": "bench-findings-oracle"}


def _key(name: str, params: dict[str, Any]) -> str:
    kept = {k: v for k, v in params.items() if k not in IGNORED}
    vector = params.get("vector")
    kept["vector"] = [round(x, 4) for x in vector[:16]] if vector else None
    return name + hashlib.sha256(json.dumps(kept, sort_keys=True, default=str).encode()).hexdigest()


class Tape:
    """The captured halves and notes, and the search query as captured or replayed."""

    def __init__(self) -> None:
        self.rows: dict[str, dict[str, Any]] = {}
        self.nodes: dict[str, dict[str, Any]] = {}
        self.counts: dict[str, list[dict[str, Any]]] = {}
        self.fusion: Fusion | None = None
        self.real = core_db.run_rows

    async def capture(self, tx: Any, name: str, /, **params: Any) -> list[dict[str, Any]]:
        """The real query; its halves and every candidate's note kept."""
        rows = await self.real(tx, name, **params)
        if name == "queries/knowledge/note_counts":
            self.counts[params["userId"]] = rows
        elif name in SEARCH_QUERIES.values() and params["mode"] != "seeds":
            row = rows[0]
            self.rows[_key(name, params)] = {k: row[k] for k in ("vectorHits", "textHits", "matched")}
            self.nodes.update({h["id"]: copy.deepcopy(h) for h in row["hits"]})
            missing = sorted({h["id"] for h in row["vectorHits"] + row["textHits"]} - set(self.nodes))
            if missing:
                seeds = params | {
                    "mode": "seeds",
                    "seedIds": missing,
                    "topK": len(missing),
                    "vector": None,
                    "pool": len(missing),
                    "candidates": None,
                    "terms": [],
                    "bare": False,
                    "collapse": None,
                }
                [found] = await self.real(tx, SEARCH_QUERIES[0], **seeds)
                self.nodes.update({h["id"]: h for h in found["hits"]})
        return rows

    async def replay(self, tx: Any, name: str, /, **params: Any) -> list[dict[str, Any]]:
        """The search query's answer from the tape, fused by :attr:`fusion`."""
        if name == "queries/knowledge/note_counts":
            return self.counts[params["userId"]]
        if params["mode"] == "seeds":
            ranked = [{"id": i, "score": None} for i in params["seedIds"] if i in self.nodes]
            return [
                {
                    "vectorHits": [],
                    "textHits": [],
                    "matched": 0,
                    "ranked": ranked,
                    "hits": [self.nodes[r["id"]] for r in ranked],
                    "reached": [],
                    "edges": [],
                    "truncated": False,
                }
            ]
        row = self.rows[_key(name, params)]
        vector_hits, text_hits = row["vectorHits"], row["textHits"]
        assert self.fusion is not None
        ordered = self.fusion(vector_hits, text_hits, params, self.nodes)
        if params["collapse"] is not None:
            seen: set[tuple[Any, ...]] = set()
            collapsed = []
            for hit in ordered:
                if tuple(hit["src"]) not in seen:
                    seen.add(tuple(hit["src"]))
                    collapsed.append(hit)
            ordered = collapsed
        ranked = ordered[: params["topK"]]
        return [
            {
                "vectorHits": vector_hits,
                "textHits": text_hits,
                "matched": row["matched"],
                "ranked": ranked,
                "hits": [self.nodes[r["id"]] for r in ranked],
                "reached": [],
                "edges": [],
                "truncated": False,
            }
        ]


def _viewed(node: dict[str, Any]) -> dict[str, Any]:
    """A note of the tape as the API shows it (the service views notes in place: a copy; a
    tape of before this was written holds some notes viewed already)."""
    node = copy.deepcopy(node)
    return node if isinstance(node["createdAt"], str) else note_view(node)


class NoDatabase:
    """A database whose transactions are the tape's."""

    async def read_tx(self, work: Any) -> Any:
        return await work(None)


def ways() -> list[tuple[str, str, list[Question], dict[str, Any]]]:
    """(set, label, questions, body) of every hybrid and fulltext row findings measures."""
    s_questions = load_dataset()[1]
    o_questions = load_oracle()[1]
    rows = []
    for mode in ("hybrid", "fulltext"):
        rows += [
            ("16", f"{mode}, as asked by default", s_questions, {"mode": mode}),
            ("16", f"{mode}, collapseBy none", s_questions, {"mode": mode, "collapseBy": "none"}),
        ]
        rows += [
            ("470", f"{mode}, {label}", o_questions, {"mode": mode, **extra})
            for label, extra in AGENT_WAYS.items()
        ]
    return rows


async def measure(service: RetrievalService) -> dict[str, Any]:
    """Every hybrid row of findings, asked of ``service`` in this process."""
    from bench.date_ranking import day_end

    result: dict[str, Any] = {}
    for name, label, questions, body in ways():
        principal = Principal(USERS[name], Role.HUMAN)
        rankings = []
        for q in questions:
            asked = {"asOf": day_end(q.asked.date()).isoformat()} if q.asked else {}
            query = search_query(
                SearchIn.model_validate(
                    {"query": q.question, "topK": K, "expandConnections": False} | asked | body
                )
            )
            found = await service.search(principal, query)
            rankings.append([session_of(h["node"]["id"]) for h in found["hits"]])
        result[f"{name}: {label}"] = figures(rankings, questions, None)["all"]
    return result


def service_of(settings: Settings, db: Any) -> RetrievalService:
    return RetrievalService(
        db,
        build_embedder(settings),
        plan=VectorPlanConfig.from_settings(settings),
        sizes=TenantSizes(),
        term_limit=settings.search_term_limit,
    )


async def capture(settings: Settings) -> Tape:
    """Every hybrid search of findings run against the database of ``settings``, taped."""
    db = core_db.Database.from_settings(settings)
    tape = Tape()
    search_module.run_rows = tape.capture  # type: ignore[attr-defined]
    try:
        print(json.dumps(await measure(service_of(settings, db)), indent=1))
    finally:
        await db.close()
    return tape


async def replay(tape: Tape, variants: dict[str, Fusion]) -> None:
    """Each variant's figures, from the tape."""
    search_module.run_rows = tape.replay  # type: ignore[attr-defined]
    retrieval_module.note_view = _viewed  # type: ignore[attr-defined]
    service = service_of(Settings(), NoDatabase())
    for label, fusion in variants.items():
        tape.fusion = fusion
        figures_ = await measure(service)
        print(
            label,
            " | ".join(f"{k.split(':')[0]} {v['all']:.3f}/{v['ndcg']:.3f}" for k, v in figures_.items()),
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    cap = sub.add_parser("capture")
    cap.add_argument("--out", type=Path, required=True)
    rep = sub.add_parser("replay")
    rep.add_argument("tape", type=Path)
    rep.add_argument(
        "variants",
        type=Path,
        nargs="?",
        help="A Python file whose VARIANTS maps labels to fusions (default: bench/fusion_variants.py).",
    )
    args = parser.parse_args()
    if args.command == "capture":
        with clients(None, None, None) as (_, _, local):
            assert local is not None
            tape = asyncio.run(capture(local.settings))
        args.out.write_bytes(pickle.dumps((tape.rows, tape.nodes, tape.counts)))
    else:
        module: Any = fusion_variants
        if args.variants:
            spec = importlib.util.spec_from_file_location("variants", args.variants)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        tape = Tape()
        tape.rows, tape.nodes, tape.counts = pickle.loads(args.tape.read_bytes())  # noqa: S301 (our own file)
        asyncio.run(replay(tape, module.VARIANTS))


if __name__ == "__main__":
    main()
