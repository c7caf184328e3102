"""The bounds an import holds on a whole source: a folder's total (files and bytes read,
ctxnet/io/folder.py), and a single JSONL or CSV file (ctxnet/io/sources.py): only a regular
file, a line or record at most 4 MiB, read without holding a longer one. Each refusal is one
report entry with its file (and line); the rest imports. The caps are lowered here so
no test writes gigabytes."""

from __future__ import annotations

import json
import os
import tracemalloc
from pathlib import Path

import pytest

from ctxnet.io import folder, sources
from ctxnet.io.importer import check
from ctxnet.io.records import Record
from ctxnet.io.sources import read


def refusals(records: list[Record]) -> dict[str, str]:
    """Where -> why, of every record the reader refused (as the import's report lists them)."""
    _, _, _, report = check([r for r in records if r.problem])
    return {r["where"]: r["reason"] for r in report.rejected}


def ids(records: list[Record]) -> list[str]:
    return [str(r.data["id"]) for r in records if r.kind in ("note", "decision") and r.problem is None]


def test_a_folder_past_its_total_bytes_reads_what_came_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(folder, "MAX_FOLDER_BYTES", 2500)
    for n in range(6):  # 1,000 bytes each: the third passes 2,500
        (tmp_path / f"n{n}.md").write_text(f"Note {n} links [[n5]].\n".ljust(999, "x") + "\n")
    found = list(read(tmp_path, 10_000))
    assert ids(found) == ["n0", "n1"]
    assert refusals(found) == {
        "n2.md": "the folder's Markdown passes 2,500 bytes, the most one import reads: "
        "this file and the 3 after it not read (import the folder in parts)"
    }
    # a link to a note left out is a link to its name, as to any note not in the folder
    assert {(r.data["sourceId"], r.data["targetId"]) for r in found if r.kind == "edge"} == {
        ("n0", "n5"),
        ("n1", "n5"),
    }


def test_a_folder_past_its_file_count_is_not_even_listed_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(folder, "MAX_FILES", 3)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    for name in ("top.md", "a/1.md", "a/2.md", "b/3.md", "b/4.md"):
        (tmp_path / name).write_text(f"Text of {name}.\n")
    files, refused = folder.markdown_files(tmp_path)
    assert [f.relative_to(tmp_path).as_posix() for f in files] == ["a/1.md", "a/2.md", "top.md"]
    found = list(read(tmp_path, 300))
    assert refusals(found) == {
        tmp_path.name: "more than 3 Markdown files, the most one import reads: b/3.md and the files "
        "after it (folders in name order) not read (import the folder in parts)"
    }
    assert sorted(ids(found)) == ["1", "2", "top"]


def test_the_stated_caps() -> None:
    assert folder.MAX_FILES == 100_000
    assert folder.MAX_FOLDER_BYTES == 512 * 1024 * 1024
    assert sources.MAX_RECORD_BYTES == 4 * 1024 * 1024


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_a_named_pipe_source_is_refused_not_waited_on(tmp_path: Path, suffix: str) -> None:
    os.mkfifo(tmp_path / f"pipe{suffix}")
    found = list(read(tmp_path / f"pipe{suffix}", 300))
    assert refusals(found) == {f"pipe{suffix}": "not a regular file (a pipe, a device or a socket): not read"}


def note_line(n: int) -> str:
    return json.dumps({"id": f"n{n}", "title": f"Note {n}", "content": "Text.", "type": "fact"}) + "\n"


def test_a_jsonl_line_past_its_size_is_one_rejected_record_and_never_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sources, "MAX_RECORD_BYTES", 64 * 1024)
    monkeypatch.setattr(sources, "_CHUNK", 16 * 1024)
    big = json.dumps({"id": "big", "title": "Big", "content": "x" * 8_000_000, "type": "fact"})
    at_cap = json.dumps({"id": "cap", "title": "Cap", "content": "", "type": "fact"})
    at_cap = at_cap.replace('"content": ""', '"content": "' + "y" * (64 * 1024 - len(at_cap)) + '"')
    assert len(at_cap) == 64 * 1024  # exactly the cap: read
    source = tmp_path / "notes.jsonl"
    lines = [
        note_line(1).encode(),
        big.encode() + b"\n",
        at_cap.encode() + b"\n",
        b"\xff{}\n",
        note_line(2).encode(),
    ]
    source.write_bytes(b"".join(lines))
    tracemalloc.start()
    found = list(read(source, 100_000))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 1_000_000  # the 8 MB line was never held
    assert ids(found) == ["n1", "cap", "n2"]
    assert refusals(found) == {
        "notes.jsonl:2": "8,000,060 bytes, more than 65,536, the most a line may be: not read",
        "notes.jsonl:4": "not UTF-8 text: invalid start byte at byte 0",
    }


def test_a_jsonl_source_ending_in_a_long_line_without_a_line_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sources, "MAX_RECORD_BYTES", 1000)
    source = tmp_path / "notes.jsonl"
    source.write_text(note_line(1) + "z" * 5000)
    found = list(read(source, 300))
    assert ids(found) == ["n1"]
    assert list(refusals(found)) == ["notes.jsonl:2"]


def test_a_csv_record_past_its_size_is_skipped_to_its_end_and_the_rest_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sources, "MAX_RECORD_BYTES", 64 * 1024)
    monkeypatch.setattr(sources, "_CHUNK", 16 * 1024)
    long_line = "a" * 50_000
    many_lines = '"' + "\n".join([long_line] * 40) + ' ""quoted"" "'  # one field over 40 lines
    source = tmp_path / "notes.csv"
    source.write_bytes(
        (
            "id,title,content,type\n"
            "n1,One,Text.,fact\n"
            f"big,Big,{many_lines},fact\n"  # lines 3-42
            "\n"
            f'n2,Two,"{long_line}\nsecond line",fact\n'  # lines 44-45: 50 KB, read
            f"wide,Wide,{'b' * 200_000},fact\n"  # line 46: one line past the cap
        ).encode()
        + b"bad,Bad,\xff,fact\n"  # line 47
        + b"n3,Three,Text.,fact\n"
    )
    tracemalloc.start()
    found = list(read(source, 100_000))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 1_000_000
    assert ids(found) == ["n1", "n2", "n3"]
    assert [r.where for r in found if r.problem is None] == ["notes.csv:2", "notes.csv:44", "notes.csv:48"]
    said = refusals(found)
    assert list(said) == ["notes.csv:3", "notes.csv:46", "notes.csv:47"]
    assert said["notes.csv:3"].endswith(" bytes, more than 65,536, the most a record may be: not read")
    assert said["notes.csv:46"] == "200,015 bytes, more than 65,536, the most a record may be: not read"
    assert said["notes.csv:47"] == "not UTF-8 text: invalid start byte at byte 8 of line 47"


def test_a_file_past_what_one_import_reads_is_refused_whole_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A JSONL or CSV file larger than one import reads is one refusal, and none of it is read
    (the importer holds what it read until it is sent)."""
    monkeypatch.setattr(folder, "MAX_FOLDER_BYTES", 1000)
    line = json.dumps({"title": "t", "content": "c" * 100, "type": "fact"}) + "\n"
    for name, text in (("big.jsonl", line * 20), ("big.csv", "title,content,type\n" + "t,c,fact\n" * 200)):
        source = tmp_path / name
        source.write_text(text)
        [record] = list(sources.read(source, 300))
        assert record.problem is not None and "the most one import reads" in record.problem, record
        small = tmp_path / f"small-{name}"
        small.write_text(text[:900].rsplit("\n", 1)[0] + "\n")
        assert all(r.problem is None for r in sources.read(small, 300))
