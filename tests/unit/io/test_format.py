"""The whole-user export format (graph/io/format.py): every label and relationship type the
Cypher files write is one it carries or one it names as left out, the statements that walk
a user kind by kind name exactly its kinds, and values survive JSON exactly."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from graph.core.cypher import cypher_names, cypher_text
from graph.io.format import (
    KINDS,
    LEFT_OUT,
    RELATIONSHIPS,
    SUBLABELS,
    FormatError,
    decode,
    encode,
    rewrite_owner,
)
from graph.knowledge.models import KnowledgeType, note_label
from graph.project.models import ProjectKind, entry_label

ROOT = Path(__file__).resolve().parents[3]
#: Labels that are not a user's memory: the write gate's node (its counters are the header's),
#: a restore's own temporary mark, and migrate's marks of its data steps (no user's).
NOT_MEMORY = {"Tenant", "Restoring", "Migration"}
#: The statements that name every kind, one ``MATCH (n:Kind)`` each.
BY_KIND = ("queries/io/user_nodes_page", "queries/io/user_relationships_page", "queries/io/user_counts",
           "queries/io/restore_discard")  # fmt: skip


def _cypher() -> str:
    return "\n".join(cypher_text(name) for folder in ("schema", "queries") for name in cypher_names(folder))


def test_every_label_and_type_the_code_writes_is_placed() -> None:
    text = _cypher()
    labels = set(re.findall(r"\(\w*:([A-Z]\w+)", text)) | set(
        re.findall(r"(?:SET|REMOVE) \w+:([A-Z]\w+)", text)
    )
    labels |= {note_label(t) for t in KnowledgeType} | {entry_label(k) for k in ProjectKind}
    labels -= RELATIONSHIPS  # ``(:Mutation)-[:UNDOES]->`` read as ``(x:UNDOES`` by the pattern above
    unplaced = labels - set(KINDS) - SUBLABELS - set(LEFT_OUT) - NOT_MEMORY
    assert not unplaced, f"labels the export neither carries nor leaves out: {sorted(unplaced)}"
    types = {t for group in re.findall(r"\[\w*:([A-Z_|]+)", text) for t in group.split("|")}
    assert types, "no relationship type found"
    assert not types - RELATIONSHIPS, (
        f"relationship types the export cannot restore: {sorted(types - RELATIONSHIPS)}"
    )


@pytest.mark.parametrize("name", BY_KIND)
def test_the_statements_that_walk_a_user_name_every_kind(name: str) -> None:
    named = Counter(re.findall(r"MATCH \(n:(\w+)\)", cypher_text(name)))
    assert set(named) == set(KINDS) and len(set(named.values())) == 1, (name, named)


def test_values_survive_json_exactly() -> None:
    rows = [
        {
            "key": "at",
            "type": "ZONED DATETIME NOT NULL",
            "value": "2026-01-01T00:00:00.123456789+01:00[Europe/Paris]",
        },
        {"key": "validFrom", "type": "INTEGER NOT NULL", "value": 1_700_000_000_000},
        {"key": "confidence", "type": "FLOAT NOT NULL", "value": 1.0},
        {"key": "embedding", "type": "LIST<FLOAT NOT NULL> NOT NULL", "value": [0.5, 1.0, -2.0]},
        {"key": "tags", "type": "LIST<NOTHING> NOT NULL", "value": []},
        {"key": "userId", "type": "STRING NOT NULL", "value": "alice"},
        {"key": "tenantKey", "type": "STRING NOT NULL", "value": "t123"},
    ]
    written = json.loads(json.dumps(encode(rows, "node 1")))
    assert written["at"] == {"datetime": "2026-01-01T00:00:00.123456789+01:00[Europe/Paris]"}
    assert isinstance(written["validFrom"], int) and isinstance(written["confidence"], float)
    plain, temporal, vectors = decode(written, "records.0")
    assert plain == {
        "validFrom": 1_700_000_000_000,
        "confidence": 1.0,
        "tags": [],
    }  # owner's keys set by the server
    assert temporal == [{"key": "at", "type": "datetime", "value": written["at"]["datetime"]}]
    assert vectors == [{"key": "embedding", "value": [0.5, 1.0, -2.0]}]
    with pytest.raises(FormatError, match="POINT"):
        encode([{"key": "where", "type": "POINT NOT NULL", "value": None}], "node 2")
    for bad in ({"when": {"point": "x"}}, {"mixed": [1, "a"]}, {"nested": [[1]]}):
        with pytest.raises(FormatError):
            decode(bad, "records.0")


def test_the_exported_users_id_becomes_the_restoring_ones() -> None:
    props = {"targetId": "alice", "title": "alice", "text": "alice's note", "n": 3}
    assert rewrite_owner(props, "alice", "bob") == 1
    assert props == {"targetId": "bob", "title": "alice", "text": "alice's note", "n": 3}
    assert rewrite_owner({"targetId": "note-1"}, "alice", "bob") == 0
