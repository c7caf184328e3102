"""The ledger a restore reads (graph/core/ledger.py): what several processes append at once
comes back whole, line by line, and a restore of a dump is given exactly what happened after
it (every entry, when the ledger does not know the dump)."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

from graph.core.ledger import BACKUP, CARRIED_OUT, DESK_END, FORGET, REVOKE, USER_FORGET, Ledger


def _append_many(path: str, writer: int, count: int) -> None:
    ledger = Ledger(Path(path))
    for n in range(count):
        ledger.forgot(f"user-{writer}", {"steps": [["note", [f"n{writer}-{n}-" + "x" * 300]]]})


def test_entries_come_back_in_order_with_their_fields_and_the_file_is_private(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "data" / "ledger.jsonl")
    ledger.revoked("key_1", "alice")
    ledger.desk_ended("key_2", "bob")
    ledger.user_forgotten("carol")
    ledger.forgot("dave", {"steps": [["note", ["n1"]]], "later": {"nested": True}})

    entries = ledger.entries()
    assert [(e.kind, e.line) for e in entries] == [(REVOKE, 1), (DESK_END, 2), (USER_FORGET, 3), (FORGET, 4)]
    assert entries[0].fields == {"keyId": "key_1", "userId": "alice"}
    assert entries[3].fields["record"] == {"steps": [["note", ["n1"]]], "later": {"nested": True}}
    assert all(e.at.endswith("+00:00") for e in entries)
    assert oct(ledger.path.stat().st_mode & 0o777) == "0o600"
    assert "key key_1 of user alice revoked" in entries[0].describe()


def test_processes_appending_at_once_never_tear_or_mix_a_line(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    context = multiprocessing.get_context("spawn")
    writers = [context.Process(target=_append_many, args=(str(path), w, 150)) for w in range(4)]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(60)
        assert writer.exitcode == 0

    lines = path.read_bytes().splitlines()
    assert len(lines) == 600
    entries = [json.loads(line) for line in lines]  # every line is one whole entry
    for w in range(4):
        mine = [e["record"]["steps"][0][1][0] for e in entries if e["userId"] == f"user-{w}"]
        assert mine == [f"n{w}-{n}-" + "x" * 300 for n in range(150)]  # each writer's in its order


def test_a_line_torn_by_a_crash_is_skipped_and_never_glued_to_the_next(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "ledger.jsonl")
    ledger.revoked("key_1", "alice")
    with ledger.path.open("ab") as handle:
        handle.write(b'{"kind":"revoke","at":"2026-')  # a crash in the middle of an append
    ledger.revoked("key_2", "alice")

    assert [e.fields["keyId"] for e in ledger.entries()] == ["key_1", "key_2"]


def test_a_known_dump_gets_what_came_after_it_and_an_unknown_one_everything(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "ledger.jsonl")
    assert ledger.since_dump("abc") == (None, [])  # no ledger yet: nothing to carry out
    ledger.revoked("key_before", "alice")
    ledger.backed_up("abc", tmp_path / "a.dump", 10)
    ledger.revoked("key_after", "alice")
    ledger.user_forgotten("bob")
    ledger.backed_up("def", tmp_path / "b.dump", 10)
    ledger.forgot("carol", {"steps": []})
    ledger.restored("abc", True, 3)

    backup, due = ledger.since_dump("abc")
    assert backup is not None and backup.kind == BACKUP and backup.fields["file"].endswith("a.dump")
    assert [e.fields.get("keyId") or e.fields["userId"] for e in due] == ["key_after", "bob", "carol"]
    _, due_later = ledger.since_dump("def")
    assert [e.fields["userId"] for e in due_later] == ["carol"]
    unknown, everything = ledger.since_dump("0123")
    assert unknown is None
    assert [e.kind for e in everything] == [REVOKE, REVOKE, USER_FORGET, FORGET]
    assert all(e.kind in CARRIED_OUT for e in everything)
