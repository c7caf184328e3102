"""Query parameters: large lists travel unchanged but are not formatted for the debug log."""

from __future__ import annotations

from neo4j._codec.packstream.v1 import PackableBuffer, Packer

from graph.core.db import QuietList, quiet


def _packed(value: object) -> bytes:
    buffer = PackableBuffer()
    Packer(buffer).pack(value)
    return bytes(buffer.data)


def test_quiet_lists_pack_exactly_like_lists() -> None:
    rows = [{"id": f"n{i}", "embedding": [i / 7, -i / 3, 0.5], "tags": ["a"]} for i in range(50)]
    assert _packed({"rows": quiet({"rows": rows})["rows"]}) == _packed({"rows": rows})


def test_quiet_wraps_only_top_level_lists_and_keeps_their_items() -> None:
    params = quiet({"rows": [1, 2, 3], "userId": "u", "limit": 5, "filters": None})
    assert isinstance(params["rows"], QuietList)
    assert params["rows"] == [1, 2, 3]
    assert (params["userId"], params["limit"], params["filters"]) == ("u", 5, None)


def test_a_batch_of_vectors_has_a_short_repr() -> None:
    rows = [{"embedding": [0.123456789] * 384} for _ in range(1_000)]
    assert repr(quiet({"rows": rows})) == "{'rows': <list of 1000>}"
