"""How a user's whole export after a forget differs from what the oracle
(``forget_oracle.py``) says it must hold: record by record, each difference said in words a
reader checks against the export (what should be gone, what should stay as it was, which
field became what)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.integration.project.export_records import Export, Match, NodeKey, holds, text_of
from tests.integration.project.forget_oracle import DRIFT, SCRUBBED_AWAY, Verdict


def compare(
    before: Export, after: Export, v: Verdict, m: Match, foreign: Callable[[NodeKey, dict[str, Any]], bool]
) -> list[str]:
    """How ``after`` differs from what ``v`` says of ``before`` (empty: as it must be).
    ``foreign``: records others wrote meanwhile (left out)."""
    problems: list[str] = []
    for key, props in before.nodes.items():
        now = after.nodes.get(key)
        if key in v.gone:
            if now is not None:
                problems.append(f"{key} should be gone: {_short(props)}")
        elif now is None:
            problems.append(f"{key} is gone, and should not be: {_short(props)}")
        elif after.labels[key] != before.labels[key]:
            problems.append(f"{key} labels {before.labels[key]} became {after.labels[key]}")
        else:
            problems += _node(key, props, now, v, m)
    new = [(k, p) for k, p in after.nodes.items() if k not in before.nodes and not foreign(k, p)]
    made = [p for k, p in new if k[0] == "Mutation"]
    runs = [p for p in made if p.get("op") == "memory.forget"]
    if len(runs) != 1 and not (v.empty and not runs):
        problems.append(f"the run's journal entries: {[p.get('op') for p in made]}")
    statuses = sorted(str(p.get("targetId")) for p in made if p.get("op") == "note.status")
    if statuses != sorted(k for _, k in v.restored):
        problems.append(f"note.status entries for {statuses}, notes made active: {sorted(v.restored)}")
    problems += [
        f"new {k}: {_short(p)}"
        for k, p in new
        if k[0] != "Mutation" or p.get("op") not in ("memory.forget", "note.status")
    ]
    problems += [f"new {k} holds the query" for k, p in new if holds(text_of(p), m.query)]
    problems += _rels(
        before, after, v, {k for k, _ in new} | {k for k, p in after.nodes.items() if foreign(k, p)}
    )
    gone_notes = sum(1 for k in v.gone if k[0] == "Knowledge")
    notes = (before.header["tenant"]["notes"] - gone_notes, after.header["tenant"]["notes"])
    if notes[0] != notes[1] and not any(foreign(k, p) for k, p in after.nodes.items()):
        problems.append(f"the tenant counts {notes[1]} notes, not {notes[0]}")
    if m.query is not None and not m.windowed and not m.notes_only and m.ids is None:
        problems += [f"still holds the query: {h}" for h in after.holders(m.query)]
    return problems


def _node(key: NodeKey, props: dict[str, Any], now: dict[str, Any], v: Verdict, m: Match) -> list[str]:
    kind = key[0]
    if key in v.scrubbed:
        want = {k: x for k, x in props.items() if k not in SCRUBBED_AWAY} | {"scrubbed": True}
        if now.get("targetId") != want.get("targetId") and want.get("targetType") == "WikiPage":
            want["targetId"] = now.get("targetId")  # a page's entries name its session once scrubbed
        return [] if now == want else [f"{key} should be scrubbed to {_short(want)}, is {_short(now)}"]
    if key in v.restored:
        want = props | {"status": "active"}
        drift = DRIFT["Knowledge"]
    elif key in v.touched:
        want, drift = v.changed.get(key, props), DRIFT.get(kind, set())
    else:
        want, drift = props, set()
    if kind == "Thread":  # its gist: a background task remakes it when its messages changed, in any run
        drift = DRIFT["Thread"]
    same = {k: x for k, x in want.items() if k not in drift}
    left = {k: x for k, x in now.items() if k not in drift}
    if same == left:
        return []
    keys = sorted({*same, *left})
    return [
        f"{key}.{k}: {_short(same.get(k))} became {_short(left.get(k))}"
        for k in keys
        if same.get(k) != left.get(k)
    ]


def _rels(before: Export, after: Export, v: Verdict, new: set[NodeKey]) -> list[str]:
    problems: list[str] = []
    for rel, many in before.rels.items():
        now = after.rels.get(rel, [])
        if any((end in v.gone) == (end in after.nodes) for end in rel[1:]):
            continue  # an end went that should not have, or stayed that should have gone: said of the node
        if rel[1] in v.gone or rel[2] in v.gone:
            want: list[dict[str, Any]] = []
        else:
            want = v.rels_changed.get(rel, many)
        if sorted(map(repr, now)) != sorted(map(repr, want)):
            problems.append(f"relationship {rel}: {_short(want)} became {_short(now)}")
    for rel, many in after.rels.items():
        if rel not in before.rels and not (rel[1] in new or rel[2] in new):
            problems.append(f"new relationship {rel}: {_short(many)}")
    return problems


def _short(value: Any) -> str:
    text = repr(
        {k: x for k, x in value.items() if not k.endswith(("mbedding", "vector"))}
        if isinstance(value, dict)
        else value
    )
    return text if len(text) < 400 else text[:400] + "..."
