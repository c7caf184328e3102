"""Import figures: `ctxnet import` beside what it is built on, in one run.

On a private Neo4j with the API in its own process:

* **Precomputed vectors** (JSONL notes carrying their embedding): the importer (validation,
  batches of 500, two in flight) beside the API's own batch create (the same notes posted
  1,000 at a time, one after the other, by a bare HTTP client), each into a user of its own.
* **The local embedder** (JSONL notes without vectors: the API embeds them): the importer
  beside the embedder alone on the same texts in this process (batches of 32, one thread:
  what the API's embedder does).

Run with ``python -m bench.imports`` (``quick`` for a small run that is not saved;
``embedded`` for the embedder side alone at 100,000 notes, about 50 minutes, saved apart).
"""

from __future__ import annotations

import asyncio
import io
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bench.common import machine, private_neo4j, save
from bench.continuity import _auth
from bench.corpus import Corpus, settle
from ctxnet.client import AsyncClient
from ctxnet.io.importer import run_import
from graph.core.db import Database
from graph.core.embeddings import build_embedder
from graph.core.principals import ApiKeys, Role
from graph.core.settings import Settings
from tests.support.servers import running_api


@dataclass(frozen=True)
class Size:
    """How many notes each side writes."""

    vectors: int = 100_000
    embedded: int = 10_000


FULL = Size()
QUICK = Size(vectors=5_000, embedded=1_000)
#: The embedder side alone, at the size the README quotes (the full run keeps it at 10,000).
EMBEDDED = Size(vectors=0, embedded=100_000)


async def keys(settings: Settings, users: list[str]) -> dict[str, str]:
    db = Database.from_settings(settings)
    try:
        await db.wait_until_reachable(60)
        return {user: (await ApiKeys(db).create(user, Role.HUMAN))[1] for user in users}
    finally:
        await db.close()


def notes_file(path: Path, count: int, with_vectors: bool) -> list[dict[str, Any]]:
    """``count`` synthetic notes, written as JSONL; also returned."""
    corpus = Corpus(seed=11)
    vectors, topics = corpus.notes(count)
    notes = corpus.items("n", vectors, topics, 0)
    if not with_vectors:
        for note in notes:
            del note["embedding"]
    with path.open("w") as out:
        for note in notes:
            out.write(json.dumps(note) + "\n")
    return notes


def api_batches(base_url: str, key: str, notes: list[dict[str, Any]]) -> float:
    """The API's own batch create, 1,000 at a time, one after the other: notes/s."""
    with httpx.Client(base_url=base_url, headers=_auth(key), timeout=600) as client:
        bodies = [json.dumps({"items": notes[i : i + 1_000]}).encode() for i in range(0, len(notes), 1_000)]
        started = time.perf_counter()
        for body in bodies:
            answer = client.post(
                "/v1/knowledge/batch", content=body, headers={"Content-Type": "application/json"}
            )
            answer.raise_for_status()
        return len(notes) / (time.perf_counter() - started)


def importer(base_url: str, key: str, source: Path) -> float:
    """``ctxnet import`` of the file (reading and checking it included): notes/s."""

    async def run() -> float:
        async with AsyncClient(base_url, key) as client:
            started = time.perf_counter()
            report = await run_import(source, client, progress=io.StringIO())
            spent = time.perf_counter() - started
        assert not report.rejected and report.created == report.notes, report.view()
        return report.notes / spent

    return asyncio.run(run())


def embedder_alone(notes: list[dict[str, Any]]) -> float:
    """The local embedder on the same texts (title and content, as the API embeds a note),
    batches of 32, one thread: texts/s."""
    embedder = build_embedder(Settings(embedding_threads=1))
    texts = [f"{n['title']}\n{n['content']}" for n in notes]
    started = time.perf_counter()
    for i in range(0, len(texts), 32):
        asyncio.run(embedder.embed(texts[i : i + 32]))
    return len(texts) / (time.perf_counter() - started)


def main(size: Size = FULL) -> dict[str, Any]:
    """Run on a private Neo4j and save the figures (``QUICK`` ones are not saved)."""
    figures: dict[str, Any] = {"size": {"vectors": size.vectors, "embedded": size.embedded}}
    with private_neo4j("ctxnet-bench-io-") as (settings, env, local):
        folder = settings.data_dir  # removed with the private Neo4j: the 350 MB of JSONL too
        local.start()
        with running_api(settings.data_dir / "api.log", env) as api:
            secrets = asyncio.run(keys(settings, ["raw", "imported", "embedded"]))
            if size.vectors:
                with_vectors = notes_file(folder / "vectors.jsonl", size.vectors, with_vectors=True)
                figures["api_batch_per_s"] = round(api_batches(api.base_url, secrets["raw"], with_vectors), 1)
                figures["settled_s"] = settle(local)
                figures["import_vectors_per_s"] = round(
                    importer(api.base_url, secrets["imported"], folder / "vectors.jsonl"), 1
                )
                ratio = figures["import_vectors_per_s"] / figures["api_batch_per_s"]
                figures["vectors_ratio"] = round(ratio, 2)
                print("vectors:", figures, flush=True)
            plain = notes_file(folder / "texts.jsonl", size.embedded, with_vectors=False)
            figures["embedder_per_s"] = round(embedder_alone(plain), 1)
            figures["import_embedded_per_s"] = round(
                importer(api.base_url, secrets["embedded"], folder / "texts.jsonl"), 1
            )
            figures["embedded_ratio"] = round(figures["import_embedded_per_s"] / figures["embedder_per_s"], 2)
    print(json.dumps(figures, indent=2))
    if size == QUICK:
        return figures
    path = save("imports" if size == FULL else "imports_embedded", figures)
    print(f"import figures on {machine()['cpu']} ({machine()['cores']} cores) -> {path}")
    return figures


if __name__ == "__main__":
    main({"quick": QUICK, "embedded": EMBEDDED}.get(" ".join(sys.argv[1:]), FULL))
