"""A whole user's export file is checked whole before anything is sent (ctxnet/io/whole.py):
each way a file can be wrong is refused with its line."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from ctxnet.io.whole import ExportFileError, check_file, is_whole_export, line_of

HEADER = {"record": "export", "format": 1, "userId": "alice", "seq": 3, "tenant": {"seq": 3},
          "nodes": {"Knowledge": 2}, "relationships": {"RELATED_TO": 1}}  # fmt: skip
NODES = [
    {"record": "node", "ref": f"4:x:{i}", "labels": ["Knowledge", "Fact"], "properties": {"id": f"n{i}"}}
    for i in range(2)
]
EDGE = {"record": "relationship", "type": "RELATED_TO", "start": "4:x:0", "end": "4:x:1", "properties": {}}


def write(path: Path, records: list[dict[str, Any]], *, end: bool = True) -> Path:
    """``records`` as the export writes them, with the end line (its count and checksum)."""
    lines = [line_of(r) for r in records]
    if end:
        digest = hashlib.sha256("".join(lines).encode()).hexdigest()
        lines.append(line_of({"record": "end", "records": len(records) - 1, "sha256": digest}))
    path.write_text("".join(lines), encoding="utf-8")
    return path


def test_a_whole_file_passes(tmp_path: Path) -> None:
    path = write(tmp_path / "ok.jsonl", [HEADER, *NODES, EDGE])
    assert is_whole_export(path)
    header, _, records = check_file(path)
    assert header["userId"] == "alice" and records == 3


@pytest.mark.parametrize(
    ("records", "said"),
    [
        ([HEADER | {"format": 2}, *NODES, EDGE], "line 1: format 2; this ctxnet reads format 1"),
        ([HEADER, EDGE, *NODES], "line 2: the relationship names node 4:x:0, not in the file"),
        ([HEADER, NODES[0], NODES[0], EDGE], "line 3: node 4:x:0 is in the file twice"),
        ([HEADER, *NODES, EDGE, NODES[1] | {"ref": "4:x:9"}], "line 5: a node after the relationships"),
        ([HEADER, *NODES], "line 1: the header states {'RELATED_TO': 1} relationships"),
        (
            [HEADER, NODES[0] | {"labels": None}, NODES[1], EDGE],
            "line 2: the record: Value error, a node record",
        ),
        (
            [HEADER, *NODES, EDGE | {"properties": {"k": [[[[[1]]]]]}}],
            "line 4: properties: Value error, nested",
        ),
        ([HEADER, NODES[0] | {"labels": ["ApiKey"]}, NODES[1], EDGE], "line 2: a node has exactly one kind"),
        (
            [HEADER, *NODES, EDGE | {"type": "OWNS"}],
            "line 4: 'OWNS' is not a relationship type of this format",
        ),
        ([HEADER, NODES[0] | {"properties": {"at": {"point": "x"}}}, NODES[1], EDGE], "line 2: records.0.at"),
    ],
)
def test_a_wrong_file_is_refused_with_its_line(
    tmp_path: Path, records: list[dict[str, Any]], said: str
) -> None:
    with pytest.raises(ExportFileError) as refused:
        check_file(write(tmp_path / "bad.jsonl", records))
    assert str(refused.value).startswith(said), str(refused.value)


def test_a_file_cut_short_or_changed_is_refused(tmp_path: Path) -> None:
    cut = write(tmp_path / "cut.jsonl", [HEADER, *NODES, EDGE], end=False)
    with pytest.raises(ExportFileError, match="line 5: the file ends before its end record"):
        check_file(cut)
    path = write(tmp_path / "changed.jsonl", [HEADER, *NODES, EDGE])
    path.write_text(path.read_text(encoding="utf-8").replace('"n1"', '"n9"'), encoding="utf-8")
    with pytest.raises(ExportFileError, match="line 5: the end record's count or checksum does not match"):
        check_file(path)
    assert not is_whole_export(write(tmp_path / "notes.jsonl", [{"title": "a note"}], end=False))
