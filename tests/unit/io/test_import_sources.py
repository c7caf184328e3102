"""What an import reads, without a database: Markdown front matter, typed lists and
wikilinks, line numbers, the split of a long note, CSV and JSONL records, and the state file
a resume trusts only for the same records cut the same way."""

from __future__ import annotations

import json
from pathlib import Path

from ctxnet.io.importer import check
from ctxnet.io.progress import StateFile
from ctxnet.io.sources import read, slug


def test_markdown_front_matter_lists_and_wikilinks(tmp_path: Path) -> None:
    front = "---\nid: a\ntype: fact\nsupersedes: [old note]\n---\n"
    (tmp_path / "a.md").write_text(front + "# Title A\n\nSee [[B note]] and [[B note|again]].\n")
    records = list(read(tmp_path, 300))
    assert [(r.kind, r.where) for r in records] == [
        ("note", "a.md:6"),  # the body's first line, after five of front matter
        ("edge", "a.md:6"),
        ("edge", "a.md:8"),
    ]
    note, supersedes, link = (r.data for r in records)
    assert (note["id"], note["title"], note["type"], note["sourceRef"]) == ("a", "Title A", "fact", "a.md:6")
    assert supersedes == {"sourceId": "a", "type": "supersedes", "targetId": "old-note"}
    assert link == {"sourceId": "a", "type": "relatedTo", "targetId": "B-note"}  # once, however often linked


def test_line_numbers_count_the_blank_lines_after_front_matter(tmp_path: Path) -> None:
    (tmp_path / "b.md").write_text("---\nid: b\n---\n\n# T\n\nSee [[c]]\n")
    note, link = read(tmp_path, 300)
    assert (note.where, link.where) == ("b.md:5", "b.md:7")


def test_a_long_note_is_split_at_headings_into_linked_parts(tmp_path: Path) -> None:
    body = "\n\n".join(f"## Part {p}\n\n" + " ".join(["word"] * 200) for p in range(3))
    (tmp_path / "long.md").write_text(body)
    records = list(read(tmp_path, 300))
    notes = [r for r in records if r.kind == "note"]
    assert [n.data["id"] for n in notes] == ["long", "long-2", "long-3"]
    assert all(len(n.data["content"].split()) <= 300 and n.data["dedupe"] is False for n in notes)
    assert [r.data for r in records if r.kind == "edge"] == [
        {"sourceId": "long-2", "type": "relatedTo", "targetId": "long"},
        {"sourceId": "long-3", "type": "relatedTo", "targetId": "long-2"},
    ]
    _, _, _, report = check(records)
    assert report.split == ["long.md:1"] and not report.rejected


def test_csv_and_jsonl_records_keep_their_lines(tmp_path: Path) -> None:
    (tmp_path / "n.csv").write_text("id,title,content,type,tags\nx,X,Some fact.,fact,a;b\ny,Y,Bad,opinion,\n")
    records = list(read(tmp_path / "n.csv", 300))
    assert [(r.where, r.data.get("tags")) for r in records] == [("n.csv:2", ["a", "b"]), ("n.csv:3", None)]
    notes, _, _, report = check(records)
    assert [n.data["id"] for n in notes] == ["x"]
    assert report.rejected == [{"where": "n.csv:3", "field": "type", "reason": report.rejected[0]["reason"]}]
    lines = [{"record": "export"}, {"record": "edge", "sourceId": "x", "type": "relatedTo", "targetId": "z"}]
    (tmp_path / "e.jsonl").write_text("\n".join(json.dumps(line) for line in lines) + "\n\n[1]\n")
    records = list(read(tmp_path / "e.jsonl", 300))
    assert [(r.kind, r.where) for r in records] == [("edge", "e.jsonl:2"), ("note", "e.jsonl:4")]
    assert records[1].problem == "a line must be one JSON object"
    assert slug(" Hello, World! ") == "Hello-World"


def test_a_resume_trusts_only_its_own_records_and_batch_size(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    first = StateFile(path, "fingerprint-1", resume=False)
    first.finish("notes:0", {"twin": "note"})
    assert StateFile(path, "fingerprint-1", resume=True).done == {"notes:0"}
    assert StateFile(path, "fingerprint-1", resume=True).folded == {"twin": "note"}
    assert StateFile(path, "fingerprint-2", resume=True).done == set()  # other records, or cut otherwise
    assert StateFile(path, "fingerprint-1", resume=False).done == set()  # without --resume: from the start


def test_notes_without_an_id_get_one_from_what_they_say(tmp_path: Path) -> None:
    lines = [{"title": "T", "content": "Same words."}, {"title": "U", "content": "Other words."}]
    (tmp_path / "n.jsonl").write_text("\n".join(json.dumps(line | {"type": "fact"}) for line in lines) + "\n")
    first, _, _, _ = check(list(read(tmp_path / "n.jsonl", 300)))
    again, _, _, _ = check(list(read(tmp_path / "n.jsonl", 300)))
    assert [n.data["id"] for n in first] == [n.data["id"] for n in again]
    assert len({n.data["id"] for n in first}) == 2 and all(n.data["id"].startswith("note-") for n in first)


def test_a_file_that_is_not_utf8_is_one_rejected_record(tmp_path: Path) -> None:
    (tmp_path / "good.md").write_text("Fine.\n")
    (tmp_path / "bad.md").write_bytes(b"\xff\xfe not text")
    notes, _, _, report = check(list(read(tmp_path, 300)))
    assert [n.data["id"] for n in notes] == ["good"]
    assert [r["where"] for r in report.rejected] == ["bad.md:1"]
    assert slug("a@b c") == "a@b-c"


MADR2 = """# Use plain JUnit5 for test assertions

* Status: rejected
* Deciders: the test guild
* Date: 2026-02-02

## Context and Problem Statement

How do we write readable test assertions?

## Considered Options

* Plain JUnit5
* Hamcrest

## Decision Outcome

Chosen option: "Plain JUnit5", because it is the standard.

### Positive Consequences

* Tests read as plain Java.
* No extra library.

### Negative Consequences
* Long assertions.
"""


def test_madr2_bullets_statuses_and_negative_consequences(tmp_path: Path) -> None:
    """MADR 2 puts status and date in bullets and splits consequences by sign; a rejected or
    deprecated record comes in archived, so it never shapes an agent's instructions."""
    (tmp_path / "0007-junit.md").write_text(MADR2)
    nygard = "# 8. Use XML\n\n## Status\n\nDeprecated\n\n## Context\n\nThen.\n\n## Decision\n\nXML.\n"
    (tmp_path / "0008-xml.md").write_text(nygard)
    records = list(read(tmp_path, 300))
    assert [r.kind for r in records] == ["decision", "decision"]
    junit, xml = (r.data for r in records)
    assert junit["date"] == "2026-02-02" and junit["status"] == "archived"
    assert junit["decision"] == 'Chosen option: "Plain JUnit5", because it is the standard.'
    assert junit["consequences"] == [
        "Tests read as plain Java.",
        "No extra library.",
        "Negative: Long assertions.",
    ]
    assert xml["status"] == "archived" and xml["decision"] == "XML."
    _, _, _, report = check(records)
    assert report.archived == ["0007-junit", "0008-xml"] and not report.rejected


def test_a_csv_row_over_several_lines_is_where_it_starts(tmp_path: Path) -> None:
    (tmp_path / "n.csv").write_text(
        'id,title,content,type\na,A,"first line\nsecond line",fact\nb,B,one line,fact\n'
    )
    records = list(read(tmp_path / "n.csv", 300))
    assert [(r.data["id"], r.where) for r in records] == [("a", "n.csv:2"), ("b", "n.csv:4")]
    assert records[0].data["content"] == "first line\nsecond line"
