"""The candidate query alone: what finding a new note's nearest stored notes costs, and what
cheaper ways of asking would change. ``python -m bench.candidate_query [--try LABEL=FILE ...]``.

One private Neo4j holding what ``bench.update_cost`` loads (four users of 2,000 notes and four
of 20,000, the same templated notes, update pairs and LongMemEval turns, each set held by
four users as that bench's two sides and two modes hold it: about 88,000 notes), then one
batch of 1,000 new notes (``Notes.stream``, ``--batch`` the first N) whose candidates are
asked for a user of each size, straight through the driver, each variant in turn (the order
rotating) for :data:`ROUNDS` rounds (``--rounds``): the median ms a note, and the share of
notes for which the variant found the same candidates (ids, in order) as the service's ask
and as the exact scan.
Variants:

* ``as for ten (the service)``: ``twins_index`` at the update floor, 4 a note, the index
  asked for as many candidates as the plan asks for ten, as ``dedupe.stored_candidates`` asks;
* ``as for 4 alone``: the index asked for the 4 the rule reads;
* ``twins floor (c5abbd3)``: the floor at the dedupe threshold, 1 a note (what the code of
  before the update rule asked);
* ``exact``: ``twins_exact``, a scan of the user's notes (the truth the others are held to);
* ``--try LABEL=FILE``: a Cypher file taking the same parameters (to try a query before it
  goes into the catalog); ``--two-step LABEL=FILE`` one asked as for 4 whose rows it says are
  not ``complete`` are asked again as the service asks (the two-step ask of 3a96d22, whose
  ``twins_index.cypher`` answered ``complete``, measured no faster: docs/benchmarks.md).

Figures in docs/benchmarks.md ("The price of telling updates from siblings").
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bench.common import machine, private_neo4j, save
from bench.corpus import settle
from bench.imports import keys
from bench.update_cost import Notes, item
from graph.core.db import Database, listed, quiet, rows_of, run_listed
from graph.core.embeddings import LOCAL_MODELS, LocalEmbedder
from graph.core.settings import Settings
from graph.core.vectors import VectorPlanConfig, score_from_cosine
from graph.knowledge.dedupe import CANDIDATES
from tests.support.servers import ApiProcess

ROUNDS = 5
SIZES = (2_000, 20_000)
COPIES = 4
BATCH = 1_000
MODEL = LOCAL_MODELS["bge-small-en-v1.5"]


@dataclass(frozen=True)
class Variant:
    """One way of asking: a catalog query or a file, what it is asked for and at what floor."""

    query: str
    want: int | None  # the plan asked as for this many (None: the exact scan)
    floor: float
    limit: int = CANDIDATES
    file: Path | None = None
    #: Rows the first answer says are not complete are asked again as the service asks.
    again: bool = False


BEFORE = "as for ten (the service)"
VARIANTS = {
    BEFORE: Variant("queries/knowledge/twins_index", 10, MODEL.update_floor),
    "as for 4 alone": Variant("queries/knowledge/twins_index", CANDIDATES, MODEL.update_floor),
    "twins floor (c5abbd3)": Variant("queries/knowledge/twins_index", 10, MODEL.dedupe_threshold, limit=1),
    "exact": Variant("queries/knowledge/twins_exact", None, MODEL.update_floor),
}


def load(client: httpx.Client, notes: list[tuple[str, str]], vectors: list[list[float]]) -> None:
    """The notes (dedupe off) into the client's user, 1,000 a request."""
    for start in range(0, len(notes), 1_000):
        part = zip(notes[start : start + 1_000], vectors[start : start + 1_000], strict=True)
        body = {"items": [item(n, v, dedupe=False) for n, v in part]}
        client.post("/v1/knowledge/batch", json=body).raise_for_status()


async def ask(
    db: Database, user: str, variant: Variant, rows: list[dict[str, Any]], sample: int | None
) -> tuple[list[dict[str, Any]], float]:
    """The variant's answer for ``rows`` and the seconds it took."""
    params = {
        "userId": user,
        "rows": rows,
        "minScore": score_from_cosine(variant.floor) - 1e-9,
        "scope": None,
        "limit": variant.limit,
        "candidates": sample,
    }

    async def work(tx: Any) -> tuple[list[dict[str, Any]], float]:
        t0 = time.perf_counter()
        if variant.file is not None:
            found = listed(await rows_of(await tx.run(variant.file.read_text(), quiet(params))))
        else:
            found = await run_listed(tx, variant.query, **params)
        return found, time.perf_counter() - t0

    return await db.read_tx(work)


def ids_of(found: list[dict[str, Any]], limit: int) -> dict[int, list[str]]:
    return {r["index"]: [m["id"] for m in r["matches"]][:limit] for r in found}


async def answer(
    db: Database,
    user: str,
    variant: Variant,
    rows: list[dict[str, Any]],
    samples: dict[str, int | None],
    name: str,
) -> tuple[dict[int, list[str]], float, int | None]:
    """One variant's candidates by row, the seconds they took, and how many rows it asked again."""
    found, took = await ask(db, user, variant, rows, samples[name])
    asked = None
    if variant.again:
        again = {r["index"] for r in found if not r["complete"]}
        more, more_took = await ask(
            db, user, VARIANTS[BEFORE], [rows[i] for i in sorted(again)], samples[BEFORE]
        )
        found = [r for r in found if r["index"] not in again and r["matches"]] + more
        took, asked = took + more_took, len(again)
    return ids_of(found, CANDIDATES), took, asked


def agreement(mine: dict[int, list[str]], other: dict[int, list[str]], limit: int, rows: int) -> float:
    """The share of rows whose first ``limit`` candidates are the same in both answers."""
    return round(sum(mine.get(i, [])[:limit] == other.get(i, [])[:limit] for i in range(rows)) / rows, 4)


async def measure(
    settings: Settings,
    users: dict[int, str],
    rows: list[dict[str, Any]],
    variants: dict[str, Variant],
    rounds: int = ROUNDS,
) -> dict[str, Any]:
    """Each variant's figures for each user, the variants taking turns ``rounds`` times."""
    db = Database.from_settings(settings)
    plan = VectorPlanConfig.from_settings(settings)
    out: dict[str, Any] = {}
    try:
        [counts] = await db.read("queries/knowledge/note_counts", userId=users[SIZES[0]])
        total = int(counts["total"])
        for size, user in users.items():
            seconds: dict[str, list[float]] = {v: [] for v in variants}
            answers: dict[str, dict[int, list[str]]] = {}
            again: dict[str, int | None] = {}
            samples = {
                v: plan.index_candidates(x.want, size, total) if x.want else None for v, x in variants.items()
            }
            await ask(db, user, VARIANTS[BEFORE], rows[:50], samples[BEFORE])  # warm
            names = list(variants)
            for r in range(rounds):
                for name in names[r % len(names) :] + names[: r % len(names)]:
                    answers[name], took, again[name] = await answer(
                        db, user, variants[name], rows, samples, name
                    )
                    seconds[name].append(took)
            row: dict[str, Any] = {}
            for name, variant in variants.items():
                row[name] = {
                    "candidates": samples[name],
                    "ms_a_note": round(statistics.median(seconds[name]) / len(rows) * 1000, 3),
                    "same_as_service": agreement(answers[name], answers[BEFORE], variant.limit, len(rows)),
                    "same_as_exact": agreement(answers[name], answers["exact"], variant.limit, len(rows)),
                    "with_candidates": sum(1 for v in answers[name].values() if v),
                    "asked_again": again[name],
                }
                print(size, name, row[name], flush=True)
            out[str(size)] = row
    finally:
        await db.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--try", dest="tries", action="append", default=[], metavar="LABEL=FILE")
    parser.add_argument(
        "--two-step",
        dest="steps",
        action="append",
        default=[],
        metavar="LABEL=FILE",
        help="A file asked as for 4 whose rows not complete are asked again as the service asks.",
    )
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="Rounds of every variant.")
    parser.add_argument("--batch", type=int, default=BATCH, help="New notes asked for at once.")
    args = parser.parse_args()
    variants = dict(VARIANTS)
    for spec in args.tries:
        label, file = spec.split("=", 1)
        variants[label] = Variant("", 10, MODEL.update_floor, file=Path(file))
    for spec in args.steps:
        label, file = spec.split("=", 1)
        variants[label] = Variant("", CANDIDATES, MODEL.update_floor, file=Path(file), again=True)
    source = Notes()
    embedder = LocalEmbedder(models_dir=Settings().resolved_models_dir, threads=2)
    held = {n: source.base(n, seed=1 if n == max(SIZES) else n) for n in SIZES}
    every = sorted({note for notes in held.values() for note in notes})
    stream = source.stream(BATCH, seed=100)[: args.batch]
    vectors = dict(zip(every, embedder.embed_sync([f"{t}\n{c}" for t, c in every]), strict=True))
    new = embedder.embed_sync([f"{t}\n{c}" for t, c in stream])
    rows = [{"index": i, "embedding": v} for i, v in enumerate(new)]
    with private_neo4j("ctxnet-bench-candidate-query-") as (settings, env, local):
        local.start()
        api = ApiProcess(settings.data_dir / "api.log", env).start()
        try:
            api.wait_ready()
            names = [f"u{n}-{k}" for n in SIZES for k in range(COPIES)]
            secrets = asyncio.run(keys(settings, names))
            for name in names:
                notes = held[int(name[1:].split("-")[0])]
                with httpx.Client(
                    base_url=api.base_url, headers={"Authorization": f"Bearer {secrets[name]}"}, timeout=900
                ) as client:
                    load(client, notes, [vectors[n] for n in notes])
            settle(local)
        finally:
            api.stop()
        figures = asyncio.run(measure(settings, {n: f"u{n}-0" for n in SIZES}, rows, variants, args.rounds))
    path = save("candidate_query", {"rounds": args.rounds, "batch": args.batch, "figures": figures})
    print(json.dumps(figures, indent=1))
    print(f"on {machine()['cpu']} ({machine()['cores']} cores) -> {path}")


if __name__ == "__main__":
    main()
