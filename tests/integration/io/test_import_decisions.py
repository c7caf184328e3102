"""`ctxnet import` of a folder of architecture decision records (Nygard's and MADR's formats)
against the real API and Neo4j: each becomes a decision with its fields, the one another
supersedes is superseded, and the active ones reach an agent's instructions."""

from __future__ import annotations

import io
from pathlib import Path

from ctxnet.client import AsyncClient
from ctxnet.io.importer import run_import
from graph.core.principals import Role
from tests.integration.conftest import MakeCaller
from tests.support.servers import ApiProcess

NYGARD_OLD = """# 1. Use PostgreSQL for orders

Date: 2026-01-10

## Status

Superseded by [2. Use CockroachDB](0002-use-cockroachdb.md)

## Context

We need transactions for orders.

## Decision

We will store orders in PostgreSQL.

## Consequences

- Migrations run with Alembic.
- No document store.
"""


NYGARD_NEW = """# 2. Use CockroachDB for orders

Date: 2026-06-01

## Status

Accepted

Supersedes [1. Use PostgreSQL](0001-use-postgresql.md)

## Context

Orders are now written in three regions.

## Decision

We will store orders in CockroachDB.

## Consequences

Multi-region writes become possible.
"""


MADR = """---
status: accepted
date: 2026-07-01
---
# Cache prices for a minute

## Context and Problem Statement

Price lookups are slow.

## Considered Options

* Cache for a minute
* No cache

## Decision Outcome

Chosen option: "Cache for a minute", because lookups drop by 90 %.

### Consequences

* Good, because pages load faster.
* Bad, because a price may be a minute stale.
"""


async def test_a_folder_of_decision_records_becomes_decisions(
    make_caller: MakeCaller, api: ApiProcess, tmp_path: Path
) -> None:
    alice = await make_caller(Role.HUMAN)
    adr = tmp_path / "adr"
    adr.mkdir()
    records = {
        "0001-use-postgresql": NYGARD_OLD,
        "0002-use-cockroachdb": NYGARD_NEW,
        "0003-cache-prices": MADR,
    }
    for name, text in records.items():
        (adr / f"{name}.md").write_text(text)
    async with AsyncClient(api.base_url, alice.key) as cn:
        report = await run_import(adr, cn, progress=io.StringIO())
        assert not report.rejected and report.created == 3 and report.edges_created == 1
        decisions = {d["id"]: d for d in (await cn.request_json("GET", "/v1/decisions"))["items"]}
        instructions = await cn.request_json("GET", "/v1/agents/coder/instructions")
    old, new, cache = (
        decisions["0001-use-postgresql"],
        decisions["0002-use-cockroachdb"],
        decisions["0003-cache-prices"],
    )
    assert (old["title"], old["decision"], old["date"]) == (
        "Use PostgreSQL for orders", "We will store orders in PostgreSQL.", "2026-01-10",
    )  # fmt: skip
    assert old["consequences"] == ["Migrations run with Alembic.", "No document store."]
    assert (old["status"], old["supersededBy"]) == ("superseded", ["0002-use-cockroachdb"])
    assert (new["status"], new["context"]) == ("active", "Orders are now written in three regions.")
    assert (
        cache["decision"].startswith('Chosen option: "Cache for a minute"') and cache["date"] == "2026-07-01"
    )
    assert cache["consequences"] == [
        "Good, because pages load faster.",
        "Bad, because a price may be a minute stale.",
    ]
    assert [d["id"] for d in instructions["decisions"]] == ["0003-cache-prices", "0002-use-cockroachdb"]
