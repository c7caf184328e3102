"""A whole user out and back (``ctxnet export --all``, ``ctxnet import``), beside a raw Cypher
dump and load of the same rows.

On a private Neo4j with the API in its own process: one user holds 10,000 notes with their
vectors (written through the batch route, 1,000 at a time) and 5,000 edges between them,
and so a journal of 15,000 entries linked to what they changed. That user is exported
through the API (``GET /v1/export/all``, pages of at most 384 KB, the JSONL file written
with its checksum) and the file restored into an empty user (checked whole, then
``/v1/restore`` in batches through the write gate). Beside them, the **raw** side: the same
nodes and relationships read straight with the driver (one read per kind, each node's
labels and properties, each relationship's ends), written as JSONL of the driver's values,
and written back into another user with plain ``UNWIND ... CREATE`` statements (the
driver's own values as parameters, 2,000 rows a transaction, no gate, no checks).

Run with ``python -m bench.whole_user`` (``quick``: 1,000 notes, not saved).
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any, LiteralString

import httpx
from neo4j import GraphDatabase

from bench.common import machine, private_neo4j, save
from bench.continuity import _auth
from bench.corpus import Corpus
from bench.imports import keys
from ctxnet.client import AsyncClient
from ctxnet.io.whole import export_all, restore
from graph.core.settings import Settings
from tests.support.servers import running_api

#: The raw read: the same rows as the export (not keys, rate windows, jobs, the Tenant), and
#: the raw writes.
RAW_NODES: LiteralString = (
    "MATCH (n) WHERE n.userId = $user AND NOT (n:ApiKey OR n:RateWindow OR n:Job OR n:Tenant) "
    "RETURN elementId(n) AS ref, labels(n) AS labels, properties(n) AS props"
)
RAW_RELATIONSHIPS: LiteralString = (
    "MATCH (n)-[r]->(m) WHERE n.userId = $user AND m.userId = $user "
    "RETURN elementId(n) AS start, elementId(m) AS end, type(r) AS type, properties(r) AS props"
)
RAW_CREATE_NODES: LiteralString = (
    "UNWIND $rows AS row CREATE (n:RawCopy {ref: row.ref}) "
    "SET n = row.props, n.userId = $user, n.ref = row.ref, n:$(row.labels)"
)
RAW_CREATE_RELATIONSHIPS: LiteralString = (
    "UNWIND $rows AS row MATCH (a:RawCopy {ref: row.start}), (b:RawCopy {ref: row.end}) "
    "CREATE (a)-[r:$(row.type)]->(b) SET r = row.props"
)


def write_user(base_url: str, key: str, notes: int) -> float:
    """``notes`` notes with vectors and half as many edges, through the API: seconds."""
    corpus = Corpus(seed=7)
    vectors, topics = corpus.notes(notes)
    items = corpus.items("n", vectors, topics, 0)
    started = time.perf_counter()
    with httpx.Client(base_url=base_url, headers=_auth(key), timeout=600) as client:
        for i in range(0, notes, 1_000):
            client.post("/v1/knowledge/batch", json={"items": items[i : i + 1_000]}).raise_for_status()
        edges = [
            {"sourceId": f"n{i}", "type": "relatedTo", "targetId": f"n{(i * 7 + 1) % notes}"}
            for i in range(notes // 2)
        ]
        for i in range(0, len(edges), 1_000):
            client.post("/v1/connections/batch", json={"items": edges[i : i + 1_000]}).raise_for_status()
    return time.perf_counter() - started


def raw_dump_and_load(settings: Settings, user: str, target: str, path: Path) -> dict[str, float]:
    """The raw side: read every row with the driver and write it as JSONL; then create the
    same rows for ``target``. Seconds of each."""
    auth = (settings.neo4j_user, settings.resolved_neo4j_password() or "")
    with GraphDatabase.driver(settings.resolved_neo4j_uri, auth=auth) as driver:
        started = time.perf_counter()
        records, _, _ = driver.execute_query(RAW_NODES, user=user)
        nodes = [r.data() for r in records]
        records, _, _ = driver.execute_query(RAW_RELATIONSHIPS, user=user)
        relationships = [r.data() for r in records]
        with path.open("w") as out:
            for row in [*nodes, *relationships]:
                out.write(json.dumps(row, default=str) + "\n")
        dumped = time.perf_counter() - started
        started = time.perf_counter()
        driver.execute_query("CREATE INDEX raw_copy_ref IF NOT EXISTS FOR (n:RawCopy) ON (n.ref)")
        for rows, statement in ((nodes, RAW_CREATE_NODES), (relationships, RAW_CREATE_RELATIONSHIPS)):
            for i in range(0, len(rows), 2_000):
                driver.execute_query(statement, rows=rows[i : i + 2_000], user=target)
        loaded = time.perf_counter() - started
    return {"dump_s": dumped, "load_s": loaded, "rows": len(nodes) + len(relationships)}


def out_and_back(base_url: str, source: str, target: str, path: Path) -> dict[str, Any]:
    """Export the source user whole to ``path``, restore it into the target: seconds of each."""

    async def run() -> dict[str, Any]:
        async with AsyncClient(base_url, source, timeout=600) as client:
            started = time.perf_counter()
            with path.open("w", encoding="utf-8") as out:
                counts = await export_all(client, out)
            exported = time.perf_counter() - started
        async with AsyncClient(base_url, target, timeout=600) as client:
            started = time.perf_counter()
            report = await restore(client, path)
            restored = time.perf_counter() - started
        return {"export_s": exported, "import_s": restored, "counts": counts, "report": report}

    return asyncio.run(run())


def main(notes: int = 10_000) -> dict[str, Any]:
    """Run on a private Neo4j and save the figures (a quick run's are not saved)."""
    figures: dict[str, Any] = {"notes": notes}
    with private_neo4j("ctxnet-bench-whole-") as (settings, env, local):
        local.start()
        with running_api(settings.data_dir / "api.log", env) as api:
            secrets = asyncio.run(keys(settings, ["warm", "warm-copy", "source", "restored"]))
            write_user(api.base_url, secrets["warm"], 500)  # warm both sides up
            out_and_back(
                api.base_url, secrets["warm"], secrets["warm-copy"], settings.data_dir / "warm.jsonl"
            )
            raw_dump_and_load(settings, "warm", "warm-raw", settings.data_dir / "warm-raw.jsonl")
            figures["write_s"] = round(write_user(api.base_url, secrets["source"], notes), 1)
            run = out_and_back(
                api.base_url, secrets["source"], secrets["restored"], settings.data_dir / "u.jsonl"
            )
            raw = raw_dump_and_load(settings, "source", "raw-copy", settings.data_dir / "raw.jsonl")
            sizes = {"file_mb": (settings.data_dir / "u.jsonl").stat().st_size / 1e6,
                     "raw_file_mb": (settings.data_dir / "raw.jsonl").stat().st_size / 1e6}  # fmt: skip
    records = int(run["counts"]["records"])
    figures |= {
        "records": records, "nodes": run["counts"]["nodes"], "relationships": run["counts"]["relationships"],
        "file_mb": round(sizes["file_mb"], 1), "raw_file_mb": round(sizes["raw_file_mb"], 1),
        "export_s": round(run["export_s"], 1), "import_s": round(run["import_s"], 1),
        "raw_rows": raw["rows"], "raw_dump_s": round(raw["dump_s"], 1), "raw_load_s": round(raw["load_s"], 1),
        "export_per_s": round(records / run["export_s"]), "import_per_s": round(records / run["import_s"]),
        "export_vs_raw": round(run["export_s"] / raw["dump_s"], 2),
        "import_vs_raw": round(run["import_s"] / raw["load_s"], 2),
        "batches": run["report"]["batches"],
    }  # fmt: skip
    print(json.dumps(figures, indent=2))
    if notes < 10_000:
        return figures
    path = save("whole_user", figures)
    print(f"whole-user export/import figures on {machine()['cpu']} ({machine()['cores']} cores) -> {path}")
    return figures


if __name__ == "__main__":
    main(1_000 if sys.argv[1:] == ["quick"] else 10_000)
