"""`ctxnet import` of vaults and decision records in the shapes people keep them (the
fixtures under tests/data/import/, written from public corpora), against the real API and
Neo4j: what a person checks after an import — titles, ids, edges, statuses, supersession,
the templates skipped, and the report."""

from __future__ import annotations

import io
import shutil
from pathlib import Path
from typing import Any

from ctxnet.client import AsyncClient
from ctxnet.io.importer import run_import
from graph.core.principals import Role
from tests.integration.conftest import MakeCaller
from tests.support.servers import ApiProcess

DATA = Path(__file__).parents[2] / "data" / "import"


async def edges_of(cn: AsyncClient, ids: list[str]) -> set[tuple[str, str, str, str | None]]:
    found = set()
    for note_id in ids:
        for edge in (await cn.request_json("GET", f"/v1/knowledge/{note_id}/connections"))["items"]:
            found.add((edge["sourceId"], edge["type"], edge["targetId"], edge.get("note")))
    return found


async def test_a_nygard_folder_keeps_what_each_record_says(
    make_caller: MakeCaller, api: ApiProcess, tmp_path: Path
) -> None:
    alice = await make_caller(Role.HUMAN)
    folder = shutil.copytree(DATA / "nygard" / "adr", tmp_path / "adr")
    async with AsyncClient(api.base_url, alice.key) as cn:
        report = await run_import(folder, cn, progress=io.StringIO())
        decisions = {d["id"]: d for d in (await cn.request_json("GET", "/v1/decisions"))["items"]}
        instructions = await cn.request_json("GET", "/v1/agents/coder/instructions")
        edges = await edges_of(cn, list(decisions))
        again = await run_import(folder, cn, progress=io.StringIO())
    view = report.view()
    assert not view["rejected"] and not view.get("failed")
    assert [s["where"] for s in view["skipped"]] == ["ADR000-template.md:1", "README.md:1"]
    statuses = {i: d["status"] for i, d in decisions.items()}
    assert statuses == {
        "ADR001-containers": "active",
        "ADR002-ingress": "superseded",  # "Superseded by [ADR005]" on the older record only
        "ADR003-build-artefacts": "archived",  # Pending: kept, not in force
        "ADR004-postgres": "active",  # amended, still in force
        "ADR005-ingress": "active",
        "ADR006-aurora-postgres": "active",
        "ADR007-logging": "archived",  # a bare "Superseded": no edge to make it superseded
        "ADR008-metrics": "active",
        "ADR009-docker-images": "superseded",
        "ADR010-container-tools": "active",
    }
    assert decisions["ADR002-ingress"]["supersededBy"] == ["ADR005-ingress"]
    assert decisions["ADR001-containers"]["date"] == "2018-10-01"
    in_force = {d["id"] for d in instructions["decisions"]}
    assert in_force == {i for i, s in statuses.items() if s == "active"}
    assert {
        ("ADR006-aurora-postgres", "relatedTo", "ADR004-postgres", "amends"),
        ("ADR008-metrics", "relatedTo", "ADR001-containers", "partly supersedes"),
    } <= edges
    assert again.view()["changedNothing"] and not again.rejected


async def test_a_madr_folder_keeps_a_long_record_whole(
    make_caller: MakeCaller, api: ApiProcess, tmp_path: Path
) -> None:
    alice = await make_caller(Role.HUMAN)
    folder = shutil.copytree(DATA / "madr" / "docs" / "decisions", tmp_path / "decisions")
    async with AsyncClient(api.base_url, alice.key) as cn:
        report = await run_import(folder, cn, progress=io.StringIO())
        decisions = {d["id"]: d for d in (await cn.request_json("GET", "/v1/decisions"))["items"]}
        more = await cn.request_json("GET", "/v1/knowledge/0003-use-a-status-field-more")
    assert not report.rejected and len(report.skipped) == 2
    assert set(decisions) == {
        "0001-use-markdown-records", "0002-use-yaml-front-matter", "0003-use-a-status-field",
        "0004-support-categories",
    }  # fmt: skip
    assert decisions["0002-use-yaml-front-matter"]["status"] == "superseded"
    assert decisions["0004-support-categories"]["status"] == "archived"  # on hold
    assert "## Considered Options" in decisions["0001-use-markdown-records"]["context"]
    assert "sentence" in more["content"] and more["type"] == "decision"


async def test_an_obsidian_vault_with_folders_embeds_and_foreign_properties(
    make_caller: MakeCaller, api: ApiProcess, tmp_path: Path
) -> None:
    alice = await make_caller(Role.HUMAN)
    vault = shutil.copytree(DATA / "obsidian", tmp_path / "vault")
    async with AsyncClient(api.base_url, alice.key) as cn:
        report = await run_import(vault, cn, progress=io.StringIO())
        notes: dict[str, Any] = {n.id: n async for n in cn.iter_notes(limit=100)}
        edges = await edges_of(cn, list(notes))
    assert not report.rejected and report.created == 8
    assert notes["Create-a-vault"].title == "Create a vault"
    assert notes["Plugins.Templates"].title == notes["Getting-started.Templates"].title == "Templates"
    assert {"type:plugin", "source:core"} <= set(notes["Plugins.Templates"].tags)
    assert ("Core-plugins", "relatedTo", "Plugins.Templates", None) in edges
    assert ("Home", "relatedTo", "Create-a-vault", None) in edges
    assert len({e for e in edges if e[0] == "Home"}) == 3  # no embed, nothing in code


async def test_a_dendron_vault_links_by_name_to_ids_from_front_matter(
    make_caller: MakeCaller, api: ApiProcess, tmp_path: Path
) -> None:
    alice = await make_caller(Role.HUMAN)
    shutil.copytree(DATA / "dendron", tmp_path / "dendron")
    async with AsyncClient(api.base_url, alice.key) as cn:
        report = await run_import(tmp_path / "dendron" / "vault", cn, progress=io.StringIO())
        links = await edges_of(cn, ["OL44br0YkIKmhlWk"])
    assert not report.rejected and report.created == 5 and report.edges_created == 4
    assert {(s, t) for s, _, t, _ in links} == {
        ("OL44br0YkIKmhlWk", "7i0ha2drav4aadk9"),
        ("OL44br0YkIKmhlWk", "lQONqUOX3bFd7L4T"),
    }
