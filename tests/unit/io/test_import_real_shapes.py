"""What an import reads from vaults and decision records as people keep them, without a
database: the fixtures under tests/data/import/ are written from the shapes of public
corpora (obsidianmd/obsidian-help, dendronhq/dendron-site, adr/madr, alphagov/gsp)."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ctxnet.io.adr import status_word
from ctxnet.io.importer import check
from ctxnet.io.pacing import Pacer, done_ranges
from ctxnet.io.progress import Progress
from ctxnet.io.records import Record
from ctxnet.io.sources import read

DATA = Path(__file__).parents[2] / "data" / "import"


def records(folder: str) -> list[Record]:
    return list(read(DATA / folder, 300))


def edges(found: list[Record]) -> set[tuple[str, str, str, str | None]]:
    return {
        (r.data["sourceId"], r.data["type"], r.data["targetId"], r.data.get("note"))
        for r in found
        if r.kind == "edge"
    }


def test_obsidian_titles_ids_and_links_as_obsidian_reads_them() -> None:
    found = records("obsidian")
    notes = {r.data["id"]: r.data for r in found if r.kind == "note"}
    # One id per path: two notes named Templates in two folders.
    assert {"Getting-started.Templates", "Plugins.Templates"} <= notes.keys()
    # The file's own name, not its first sub-heading; front matter's title first.
    assert notes["Create-a-vault"]["title"] == "Create a vault"
    assert notes["Settings-guide"]["title"] == "Settings"
    assert "alias:Start here" in notes["Home"]["tags"]
    # A foreign type/source is a tag; the note is kept.
    assert notes["Plugins.Templates"]["type"] == "concept"
    assert {"type:plugin", "source:core"} <= set(notes["Plugins.Templates"]["tags"])
    # A note with only front matter is a note.
    assert notes["Only-properties"]["title"] == "Reading list" and notes["Only-properties"]["content"]
    assert edges(found) == {
        ("Home", "relatedTo", "Create-a-vault", None),  # [[Folder/Note|alias]]
        ("Home", "relatedTo", "Internal-links", None),  # [[Note#Heading]]
        ("Home", "relatedTo", "Settings-guide", None),  # [x](Settings%20guide.md)
        ("Create-a-vault", "relatedTo", "Getting-started.Templates", None),
        ("Core-plugins", "relatedTo", "Plugins.Templates", None),  # same folder first
        ("Plugins.Templates", "relatedTo", "Core-plugins", None),  # case-insensitive
        ("Internal-links", "relatedTo", "Home", None),
        ("Settings-guide", "relatedTo", "Internal-links", None),  # a link in a property
    }  # no embed of a .png, nothing inside code
    # A property too long for a tag is kept in the note's text, and the report counts it.
    assert "permalink:home" in notes["Home"]["tags"]
    assert notes["Home"]["content"].endswith(
        "\n\ndescription: Obsidian is the private and flexible note-taking app"
        " that adapts to the way you think."
    )
    _, _, _, report = check(found)
    assert not report.rejected and report.view()["propertiesInText"] == {"description": 1}


def test_dendron_ids_from_front_matter_links_target_last_and_the_hierarchy() -> None:
    found = records("dendron/vault")
    notes = {r.data["id"]: r.data for r in found if r.kind == "note"}
    assert notes["OL44br0YkIKmhlWk"]["title"] == "Links"
    assert "desc:" not in notes["OL44br0YkIKmhlWk"].get("tags", [])
    assert notes["root"]["content"]  # only front matter
    assert edges(found) == {
        ("OL44br0YkIKmhlWk", "relatedTo", "7i0ha2drav4aadk9", None),  # [[Topics|dendron.topic]]
        ("OL44br0YkIKmhlWk", "relatedTo", "lQONqUOX3bFd7L4T", None),  # dendron://vault/..., ![[ref]]
        ("7i0ha2drav4aadk9", "relatedTo", "4bb85c39e8ac48ad", "hierarchy"),
        ("lQONqUOX3bFd7L4T", "relatedTo", "7i0ha2drav4aadk9", "hierarchy"),
    }


def test_madr_fields_status_template_index_and_a_long_record() -> None:
    found = records("madr/docs/decisions")
    decisions = {r.data["id"]: r for r in found if r.kind == "decision"}
    assert set(decisions) == {
        "0001-use-markdown-records",
        "0002-use-yaml-front-matter",
        "0003-use-a-status-field",
        "0004-support-categories",
    }
    first = decisions["0001-use-markdown-records"].data
    assert first["decision"].startswith('Chosen option: "MADR"') and first["date"] == "2017-12-01"
    assert "## Considered Options" in first["context"]
    assert "## Pros and Cons of the Options" in first["context"]
    assert first["consequences"] == [
        "Good, because decisions are versioned with the code.",
        "Bad, because the options need some writing.",
    ]
    assert decisions["0004-support-categories"].data["status"] == "archived"  # on hold: not in force
    long = decisions["0003-use-a-status-field"].data
    assert len(long["decision"].split()) <= 300
    continued = [r.data["content"] for r in found if r.kind == "note"]
    kept = " ".join([long["decision"], *continued]).split()
    assert kept.count("sentence") == 30  # every word kept, in the decision and its continuation
    assert ("0003-use-a-status-field", "supersedes", "0002-use-yaml-front-matter", None) in edges(found)
    skipped = [(r.where, r.extra["reason"]) for r in found if r.kind == "skip"]
    assert [w.split(":")[0] for w, _ in skipped] == ["adr-template.md", "index.md"]


def test_nygard_supersession_on_the_older_record_partial_relations_and_pending(tmp_path: Path) -> None:
    # A copy outside any git work tree: no date but the one record that states it.
    found = list(read(shutil.copytree(DATA / "nygard" / "adr", tmp_path / "adr"), 300))
    decisions = {r.data["id"]: r for r in found if r.kind == "decision"}
    assert "ADR000-template" not in decisions and len(decisions) == 10
    assert decisions["ADR001-containers"].data["title"] == "Containers"
    assert decisions["ADR003-build-artefacts"].data["status"] == "archived"
    assert "status:pending" in decisions["ADR003-build-artefacts"].data["tags"]
    assert edges(found) == {
        ("ADR005-ingress", "supersedes", "ADR002-ingress", None),  # stated only on the older
        ("ADR010-container-tools", "supersedes", "ADR009-docker-images", None),  # a renamed file
        ("ADR006-aurora-postgres", "relatedTo", "ADR004-postgres", "amends"),
        ("ADR008-metrics", "relatedTo", "ADR001-containers", "partly supersedes"),
    }
    marked = [r.data for r in found if r.kind == "status"]
    assert marked == [{"id": "ADR007-logging", "status": "superseded"}]  # a bare "Superseded"
    _, _, _, report = check(found)
    assert report.superseded == ["ADR007-logging"]
    assert report.statuses == {"accepted": 6, "superseded": 3, "pending": 1}
    assert report.dated == {"record": 1, "none (the day of the import)": 9}
    assert [s["where"] for s in report.skipped] == ["ADR000-template.md:1", "README.md:1"]


def test_a_record_without_a_date_takes_the_day_git_first_saw_it(tmp_path: Path) -> None:
    folder = shutil.copytree(DATA / "nygard" / "adr", tmp_path / "adr")
    env = dict(os.environ) | {
        "GIT_AUTHOR_DATE": "2019-03-04T10:00:00Z",
        "GIT_COMMITTER_DATE": "2019-03-04T10:00:00Z",
    }
    for command in (
        ["init", "-q"],
        ["add", "."],
        ["-c", "user.name=t", "-c", "user.email=t@x", "commit", "-qm", "adr"],
    ):
        subprocess.run(["git", "-C", str(folder), *command], check=True, env=env)  # noqa: S603, S607
    dated = {
        r.data["id"]: (r.data.get("date"), r.extra["dated"])
        for r in read(folder, 300)
        if r.kind == "decision"
    }
    assert dated["ADR001-containers"] == ("2018-10-01", "record")  # the record's own date first
    assert dated["ADR002-ingress"] == ("2019-03-04", "git")


def test_status_words() -> None:
    assert status_word("⚠️ Superseded by [ADR-0034](x.md)") == "superseded"
    assert status_word("**Proposed**") == "proposed"
    assert status_word("On hold") == "on hold"
    assert status_word("Accepted, amended by ADR039") == "accepted"
    assert status_word("") == ""


def test_batches_follow_the_servers_pace() -> None:
    pacer = Pacer(500)
    assert pacer.size == 20
    pacer.took(20, 4.0)  # 5 notes/s: 10 s of them
    assert pacer.size == 40  # at most twice the last
    pacer.took(40, 40.0)  # 1 note/s
    assert pacer.size == 10
    pacer.timed_out(10)
    assert pacer.size == 5
    assert done_ranges({"notes@0+20", "notes@20+40", "edges@0+500", "archived:x"}, "notes") == {0: 20, 20: 40}


def test_progress_eta_per_phase(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = iter([0.0, 10.0, 10.0, 11.0])  # notes began, notes done; edges began, 500 in 1 s
    monkeypatch.setattr("ctxnet.io.progress.time.monotonic", lambda: next(clock))
    out = io.StringIO()
    meter = Progress({"notes": 20, "edges": 1000}, out)
    meter.advance(10, "notes")  # 10 notes at the start: no pace yet
    meter.advance(10, "notes")  # 20 notes in 10 s
    meter.advance(500, "edges")  # the edges' first records, at once
    meter.advance(250, "edges")  # 750 edges in 1 s: the rest at the edges' own pace
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [(x["step"], x["stepDone"], x["stepTotal"]) for x in lines[1:]] == [
        ("notes", 20, 20), ("edges", 500, 1000), ("edges", 750, 1000),
    ]  # fmt: skip
    assert lines[1]["etaSeconds"] == 0 and lines[3]["perSecond"] == 750
    assert lines[3]["etaSeconds"] == round(250 / 750, 1)  # not at the notes' 2 a second
    assert (lines[3]["done"], lines[3]["total"]) == (770, 1020)
