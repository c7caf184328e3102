"""The bounds an import holds on a folder of Markdown (ctxnet/io/folder.py): what it refuses,
each as one report entry with the file (and line) and why, the rest of the folder imported."""

from __future__ import annotations

import os
import time
import tracemalloc
from pathlib import Path

import pytest

from ctxnet.io import folder
from ctxnet.io.importer import check
from ctxnet.io.records import Record, slug
from ctxnet.io.sources import read


def refusals(records: list[Record]) -> dict[str, str]:
    """Where -> why, of every file the reader refused (as the import's report lists them)."""
    _, _, _, report = check([r for r in records if r.problem])
    return {r["where"]: r["reason"] for r in report.rejected}


def ids(records: list[Record]) -> set[str]:
    return {str(r.data["id"]) for r in records if r.kind in ("note", "decision") and r.problem is None}


def test_yaml_aliases_are_refused_with_their_line_and_anchors_alone_are_read(tmp_path: Path) -> None:
    levels = [f"l{i}: &l{i} [{', '.join(['*l' + str(i - 1)] * 9)}]" for i in range(1, 8)]
    (tmp_path / "bomb.md").write_text("\n".join(["---", "l0: &l0 [x]", *levels, "---", "Boom."]))
    (tmp_path / "anchor.md").write_text("---\nowner: &who Ann\n---\nAnchored, never used.\n")
    (tmp_path / "merge.md").write_text("---\nbase: &b {a: 1}\nmore:\n  <<: *b\n---\nA merge key.\n")
    found = list(read(tmp_path, 300))
    said = refusals(found)
    assert said["bomb.md:3"].startswith("front matter uses a YAML alias (*l0)")
    assert "merge.md:4" in said  # a merge key is an alias too
    assert ids(found) == {"anchor"}
    assert "owner:Ann" in next(r for r in found if r.data.get("id") == "anchor").data["tags"]


def test_front_matter_past_its_size_or_nested_too_deep_is_refused(tmp_path: Path) -> None:
    long = "x" * (folder.MAX_FRONT_MATTER_BYTES + 1)
    (tmp_path / "long.md").write_text(f"---\nnote: {long}\n---\nBody.\n")
    (tmp_path / "deep.md").write_text("---\nv: " + "[" * 20_000 + "]" * 20_000 + "\n---\nBody.\n")
    (tmp_path / "bad.md").write_text("---\ntitle: ok\n  broken: : [\n---\nBody.\n")
    said = refusals(list(read(tmp_path, 300)))
    assert said["long.md:1"].startswith("front matter of more than 65,536 bytes")
    assert said["deep.md:1"] == "front matter nests too deep"
    assert any(w.startswith("bad.md:") and r.startswith("front matter is not YAML") for w, r in said.items())


def test_a_file_past_the_size_cap_is_refused_from_its_size_without_being_read(tmp_path: Path) -> None:
    with (tmp_path / "big.md").open("wb") as big:
        big.write(b"# Big\n\n")
        big.truncate(50 * 1024 * 1024)
    (tmp_path / "fits.md").write_bytes(b"# Fits\n\n" + b"wordsword " * ((folder.MAX_FILE_BYTES - 8) // 10))
    tracemalloc.start()
    try:
        found = list(read(tmp_path, 300))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert refusals(found) == {
        "big.md": "52,428,800 bytes, more than 2,097,152, the most a file may be: not read"
    }
    assert {r.where for r in found if r.kind == "note" and not r.problem} == {"fits.md:1"}  # 600-odd parts
    assert peak < 12 * folder.MAX_FILE_BYTES  # the 2 MiB that fit, read and split; not the 50 MB


def test_one_file_makes_at_most_1000_notes_and_5000_edges(tmp_path: Path) -> None:
    words, links = tmp_path / "words", tmp_path / "links"
    words.mkdir(), links.mkdir()
    (words / "fits.md").write_text(" ".join(["word"] * folder.MAX_NOTES_PER_FILE))
    (words / "many.md").write_text(" ".join(["word"] * (folder.MAX_NOTES_PER_FILE + 1)))
    (links / "fits.md").write_text(" ".join(f"[[n{i}]]" for i in range(folder.MAX_EDGES_PER_FILE)))
    (links / "many.md").write_text(" ".join(f"[[n{i}]]" for i in range(folder.MAX_EDGES_PER_FILE + 1)))
    (links / "same.md").write_text("[[fits]] " * 100_000)  # one edge, however often said
    split = list(read(words, 1))  # one word a note: each word is a note
    linked = list(read(links, 1_000_000))
    assert refusals(split) == {
        "many.md:1": "would make more than 1,000 notes, the most one file may: not imported (split the file)"
    }
    assert refusals(linked) == {
        "many.md:1": "would make more than 5,000 edges, the most one file may: not imported (split the file)"
    }
    assert len([r for r in split if r.where == "fits.md:1" and r.kind == "note"]) == folder.MAX_NOTES_PER_FILE
    assert len([r for r in linked if r.kind == "edge" and r.data["sourceId"] == "fits"]) == 5_000
    assert [r.data["targetId"] for r in linked if r.kind == "edge" and r.data["sourceId"] == "same"] == [
        "fits"
    ]


def test_a_200_level_heading_tree_and_deep_lists_split_into_bounded_notes(tmp_path: Path) -> None:
    headings = [f"{'#' * n} Level {n}\n\nText of level {n}.\n" for n in range(1, 201)]
    nested = ["  " * n + f"- item {n}" for n in range(200)]
    (tmp_path / "deep.md").write_text("\n".join(headings + nested) + "\n")
    found = list(read(tmp_path, 300))
    parts = [r for r in found if r.kind == "note"]
    assert not refusals(found)
    assert 1 < len(parts) <= 10
    kept = " ".join(str(r.data["content"]) for r in parts)
    assert "Text of level 200." in kept and "item 199" in kept  # nothing lost


def test_invalid_utf8_is_refused_with_its_line(tmp_path: Path) -> None:
    (tmp_path / "bad.md").write_bytes(b"# Bad\n\nfine\n\xff\xfe not text\n")
    (tmp_path / "good.md").write_text("# Good\n\nText.\n")
    found = list(read(tmp_path, 300))
    assert refusals(found) == {"bad.md:4": "not UTF-8 text: invalid start byte at byte 12"}
    assert ids(found) == {"good"}


def test_names_with_control_characters_are_refused_and_dots_make_safe_ids(tmp_path: Path) -> None:
    (tmp_path / "a..b\x01c\nd.md").write_text("A name with control characters.\n")
    (tmp_path / "right\u202eto-left.md").write_text("A name that reads backwards.\n")
    (tmp_path / "v1..2 notes.md").write_text("Dots.\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "..and more.md").write_text("Hidden: a name that starts with a dot.\n")
    found = list(read(tmp_path, 300))
    said = refusals(found)
    assert said == {
        "a..b\\x01c\\nd.md": "its name holds a control character: not read",
        "right\\u202eto-left.md": "its name holds a control character: not read",
    }
    assert ids(found) == {"v1..2-notes"}
    assert slug("..\x01evil") == "evil" and slug("../../etc/passwd") == "etc-passwd"


def test_links_out_of_the_folder_are_refused_and_linked_folders_not_descended(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "private.md").write_text("PRIVATE text outside the folder.\n")
    root = tmp_path / "vault"
    (root / "inner").mkdir(parents=True)
    (root / "inner" / "real.md").write_text("Inside.\n")
    (root / "relative.md").symlink_to("../outside/private.md")
    (root / "absolute.md").symlink_to(outside / "private.md")
    (root / "inside.md").symlink_to("inner/real.md")  # stays in the folder: read
    (root / "up").symlink_to("..")
    (root / "elsewhere").symlink_to(outside)
    found = list(read(root, 300))
    said = refusals(found)
    assert said == {
        "relative.md": "a link to outside the folder (../outside/private.md): not read",
        "absolute.md": f"a link to outside the folder ({outside / 'private.md'}): not read",
        "up": "a link to a folder (..): not followed",
        "elsewhere": f"a link to a folder ({outside}): not followed",
    }
    assert ids(found) == {"inside", "real"}
    assert not [r for r in found if "PRIVATE" in str(r.data.get("content", ""))]


def test_a_named_pipe_is_refused_not_waited_on(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.md")
    (tmp_path / "note.md").write_text("Text.\n")
    found = list(read(tmp_path, 300))
    assert refusals(found) == {"pipe.md": "not a regular file (a pipe, a device or a socket): not read"}
    assert ids(found) == {"note"}


def test_a_folder_that_cannot_be_read_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "closed").mkdir()
    (tmp_path / "closed" / "inside.md").write_text("Text.\n")
    (tmp_path / "note.md").write_text("Text.\n")
    scandir = os.scandir

    def closed(path: str) -> object:  # as a folder without read permission answers (root reads any)
        if Path(path).name == "closed":
            raise PermissionError(13, "Permission denied", path)
        return scandir(path)

    monkeypatch.setattr(os, "scandir", closed)
    found = list(read(tmp_path, 300))
    assert refusals(found) == {"closed": "a folder that cannot be read: Permission denied"}
    assert ids(found) == {"note"}


#: Shapes that made the reader's patterns backtrack (quadratic or worse in a line), each
#: filled to the size cap: before, 20,000 characters of the first took over 20 s.
ADR = "## Context\n\nc\n\n## Decision\n\nd\n\n"
SHAPES = {
    "spaces after a heading": lambda n: "## a" + " " * n + "x\n",
    "spaces after a title": lambda n: "# ADR" + " " * n + "x\n",
    "brackets": lambda n: "[" * n,
    "wiki openings": lambda n: "[[" * (n // 2),
    "backticks": lambda n: "``a" * (n // 3),
    "blank lines before a date": lambda n: ADR + "\n" * n + "Date",
    "relations": lambda n: ADR + "Superseded by " * (n // 14),
    "a status of relations": lambda n: (
        "## Status\n\nAccepted, superseded by " + "[a](a.md) and " * (n // 14) + ADR
    ),
    "link openings after a relation": lambda n: ADR + "Supersedes " + "](" * (n // 2),
    "an endless link": lambda n: ADR + "Supersedes ](" + "a" * n,
    "bold after a status": lambda n: ADR + "Status:" + " **" * (n // 3),
}


@pytest.mark.serial  # times the reader
@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_file_at_the_size_cap_is_read_in_seconds_whatever_its_shape(tmp_path: Path, shape: str) -> None:
    (tmp_path / "n.md").write_text(SHAPES[shape](folder.MAX_FILE_BYTES - 200))
    began = time.perf_counter()
    found = list(read(tmp_path, 300))
    took = time.perf_counter() - began
    assert found and took < 15, f"{shape}: {took:.1f} s"
