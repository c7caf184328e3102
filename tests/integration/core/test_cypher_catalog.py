"""Every Cypher file parses and plans on the real Neo4j, and every query file is used."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from neo4j import GraphDatabase

from graph.core.cypher import cypher_names, cypher_text
from graph.core.settings import Settings

ROOT = Path(__file__).resolve().parents[3]
#: How code names a query file: ``"queries/<domain>/<name>"``.
QUERY_NAME = re.compile(r'"(queries/[a-z0-9_]+/[a-z0-9_]+)"')
ALL = (
    [name for folder in ("schema", "queries", "explore") for name in cypher_names(folder)]
    if (ROOT / "cypher" / "explore").is_dir()
    else [name for folder in ("schema", "queries") for name in cypher_names(folder)]
)


@pytest.mark.parametrize("name", ALL)
def test_every_cypher_file_plans_with_explain(name: str, settings: Settings, neo4j_server: None) -> None:
    text = cypher_text(name)
    explain_text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(":param"))
    with GraphDatabase.driver(
        settings.resolved_neo4j_uri,
        auth=(settings.neo4j_user, settings.resolved_neo4j_password() or ""),
        notifications_min_severity="OFF",
    ) as driver:
        records, summary, _ = driver.execute_query(
            "EXPLAIN\n" + explain_text, database_=settings.neo4j_database
        )
    assert summary.plan is not None, f"cypher/{name}.cypher produced no plan"


@pytest.mark.smoke
def test_every_query_file_is_loaded_by_the_code() -> None:
    source = "\n".join(
        path.read_text() for folder in ("graph", "api", "ctxnet") for path in (ROOT / folder).rglob("*.py")
    )
    used = set(QUERY_NAME.findall(source))
    unused = sorted(set(cypher_names("queries")) - used)
    assert not unused, f"query files nobody loads: {unused}"
    missing = sorted(used - set(cypher_names("queries")))
    assert not missing, f"code loads query files that do not exist: {missing}"


def test_queries_live_in_the_folder_of_the_domain_that_runs_them() -> None:
    domains = sorted(p.name for p in (ROOT / "graph").iterdir() if (p / "__init__.py").is_file())
    folders = sorted(p.name for p in (ROOT / "cypher" / "queries").iterdir() if p.is_dir())
    assert folders == domains, "cypher/queries/ has one folder per package of graph/"
    assert all(name.count("/") == 2 for name in cypher_names("queries")), "every query is in a domain folder"
    for domain in domains:
        for path in (ROOT / "graph" / domain).rglob("*.py"):
            for name in QUERY_NAME.findall(path.read_text()):
                assert name.startswith(f"queries/{domain}/"), f"{path.relative_to(ROOT)} runs {name}"


def test_every_file_holds_one_statement() -> None:
    for name in ALL:
        body = "\n".join(ln for ln in cypher_text(name).splitlines() if not ln.lstrip().startswith("//"))
        assert ";" not in body.rstrip().rstrip(";"), f"cypher/{name}.cypher holds more than one statement"
