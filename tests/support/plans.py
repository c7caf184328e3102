"""The plan Neo4j makes for one of the product's statements, as tests that hold a query to
an index (never a scan, never a sort over a whole history) read it."""

from __future__ import annotations

from typing import Any

from graph.core.cypher import cypher_text
from graph.core.db import Database


def operators(plan: dict[str, Any]) -> list[tuple[str, str]]:
    """Every operator of a plan, depth first, as (name without its ``@database``, details)."""
    found = [(plan["operatorType"].split("@")[0], str(plan.get("args", {}).get("Details", "")))]
    for child in plan.get("children", ()):
        found += operators(child)
    return found


async def explained(db: Database, name: str, params: dict[str, Any]) -> list[tuple[str, str]]:
    """The operators of ``cypher/<name>.cypher`` under ``EXPLAIN`` with ``params``."""
    _, summary, _ = await db.driver.execute_query(
        "EXPLAIN " + cypher_text(name), params, database_=db.database
    )
    return operators(summary.plan)
