"""A user's whole export (``ctxnet export --all``) read into records that two exports of the
same user compare by (element ids are not stable across writes), and text compared as a
forget compares it: :func:`fold` (Unicode caseless, NFKC) on both sides, inside every
string, JSON text read as the value it holds."""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

#: How each kind of node is named in two exports of one user (by ``id`` unless listed).
KEYS = {
    "ToolCall": ("sessionId", "position"),
    "Profile": (),
    "Preference": ("name",),
    "WikiPage": ("slug",),
    "CorrectionAck": ("correctionId", "sessionId"),
    "Access": ("actor",),
}
#: The edge types as the API and the journal name them, and as Neo4j stores them.
EDGES = {
    "relatedTo": "RELATED_TO",
    "dependsOn": "DEPENDS_ON",
    "supersedes": "SUPERSEDES",
    "conflictsWith": "CONFLICTS_WITH",
}
#: Properties that name things rather than say anything (ids, keys, hashes): never "text".
NAMES = {
    "id",
    "key",
    "fingerprint",
    "changeKey",
    "slug",
    "embeddingModel",
    "notifyModel",
    "tenantKey",
    "requestedId",
    "heldNote",
    "heldBy",
    "actor",
}

NodeKey = tuple[str, str]
RelKey = tuple[str, NodeKey, NodeKey]


def fold(text: str) -> str:
    """Unicode's caseless form with compatibility forms: what "holds the text" compares."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


def strings(value: Any) -> Iterator[str]:
    """Every string in ``value``: lists, maps (keys too) and JSON text read as what it holds."""
    if isinstance(value, str):
        yield value
        if value[:1] in ("[", "{"):
            try:
                inner = json.loads(value)
            except ValueError:
                return
            yield from strings(inner)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings(item)
    elif isinstance(value, dict):
        for k, item in value.items():
            yield str(k)
            yield from strings(item)


def holds(value: Any, query: str | None) -> bool:
    """Whether ``value`` holds ``query``, both folded (no query: nothing holds it)."""
    if query is None:
        return False
    q = fold(query)
    return any(q in fold(s) for s in strings(value))


def is_name(key: str) -> bool:
    """Whether a property names things (an id, a key) rather than holds text."""
    return key in NAMES or key.endswith(("Id", "Ids", "Slug", "userId"))


def text_of(props: dict[str, Any]) -> list[Any]:
    """The values of a record that may hold what a user wrote (not its names, not vectors)."""
    return [v for k, v in props.items() if not is_name(k) and not _vector(v)]


def _vector(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and isinstance(value[0], float)


def moment(value: Any) -> datetime | None:
    """A temporal value of the export (``{"datetime": "..."}``) as an aware datetime."""
    if not isinstance(value, dict) or "datetime" not in value:
        return None
    text = re.sub(r"\[.*\]$", "", str(value["datetime"])).replace("Z", "+00:00")
    text = re.sub(r"(\.\d{6})\d+", r"\1", text)
    found = datetime.fromisoformat(text)
    return found if found.tzinfo else found.replace(tzinfo=UTC)


def latest(text: str) -> datetime:
    """The latest time any record of an export holds: what a window's boundary is set after."""
    times = [moment(v) for line in text.splitlines() for v in _temporals(json.loads(line))]
    return max(t for t in times if t is not None)


def _temporals(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        if "datetime" in value and len(value) == 1:
            yield value
        for item in value.values():
            yield from _temporals(item)
    elif isinstance(value, list):
        for item in value:
            yield from _temporals(item)


@dataclass(frozen=True)
class Match:
    """A forget's match (``POST /v1/forget``'s ``match``)."""

    ids: tuple[str, ...] | None = None
    tags: tuple[str, ...] | None = None
    query: str | None = None
    source: str | None = None
    before: datetime | None = None
    after: datetime | None = None

    def body(self) -> dict[str, Any]:
        """The match as the API takes it."""
        out: dict[str, Any] = {}
        for name in ("ids", "tags", "query", "source", "before", "after"):
            value = getattr(self, name)
            if isinstance(value, tuple):
                out[name] = list(value)
            elif isinstance(value, datetime):
                out[name] = value.isoformat()
            elif value is not None:
                out[name] = value
        return out

    @property
    def notes_only(self) -> bool:
        """Tags and source are notes' alone: a match naming either reaches notes only."""
        return self.tags is not None or self.source is not None

    @property
    def only_ids(self) -> bool:
        """Whether ``ids`` is the only criterion (a thread named then goes whole)."""
        return self.ids is not None and list(self.body()) == ["ids"]

    @property
    def windowed(self) -> bool:
        """Whether ``before`` or ``after`` is given."""
        return self.before is not None or self.after is not None

    def within(self, at: datetime | None) -> bool:
        """Whether a thing of time ``at`` is inside before/after (one without a time is only
        when neither is given)."""
        if not self.windowed:
            return True
        if at is None:
            return False
        return (self.before is None or at < self.before) and (self.after is None or at >= self.after)


@dataclass
class Export:
    """One whole-user export by stable names: nodes ``(kind, key)`` (their labels apart) and
    relationships ``(type, start, end)``, each with the properties of every such one."""

    header: dict[str, Any]
    nodes: dict[NodeKey, dict[str, Any]]
    labels: dict[NodeKey, list[str]]
    rels: dict[RelKey, list[dict[str, Any]]]

    @classmethod
    def parse(cls, text: str) -> Export:
        """An export as ``ctxnet export --all`` writes it."""
        records = [json.loads(line) for line in text.splitlines() if line.strip()]
        refs: dict[str, NodeKey] = {}
        nodes: dict[NodeKey, dict[str, Any]] = {}
        labels: dict[NodeKey, list[str]] = {}
        rels: dict[RelKey, list[dict[str, Any]]] = {}
        for r in records:
            if r["record"] == "node":
                kind, props = r["labels"][0], r["properties"]
                key = (kind, "#".join(str(props.get(n)) for n in KEYS.get(kind, ("id",))))
                assert key not in nodes, f"two {kind} records named {key[1]!r}"
                refs[r["ref"]], nodes[key], labels[key] = key, props, sorted(r["labels"])
        for r in records:
            if r["record"] == "relationship":
                rel = (r["type"], refs[r["start"]], refs[r["end"]])
                rels.setdefault(rel, []).append(r.get("properties") or {})
        return cls(records[0], nodes, labels, rels)

    def of(self, kind: str) -> Iterator[tuple[str, dict[str, Any]]]:
        """The nodes of one kind: key and properties."""
        return ((key, props) for (k, key), props in self.nodes.items() if k == kind)

    def linked(
        self, rel_type: str, start: NodeKey | None = None, end: NodeKey | None = None
    ) -> list[NodeKey]:
        """The other ends of ``rel_type`` relationships from ``start`` (or into ``end``)."""
        return [
            e if start else s
            for t, s, e in self.rels
            if t == rel_type and start in (None, s) and end in (None, e)
        ]

    def merged(self, note: str) -> list[dict[str, Any]]:
        """The merge records folded into a note."""
        return [self.nodes[k] for k in self.linked("MERGED_FROM", start=("Knowledge", note))]

    def edge(self, target: str) -> tuple[RelKey | None, tuple[NodeKey, NodeKey] | None]:
        """The relationship a journal entry's ``"<source> <type> <target>"`` names (if it still
        exists), and the two notes it joins (or joined)."""
        parts = target.split(" ")
        if len(parts) != 3 or parts[1] not in EDGES:
            return None, None
        a, b, kind = ("Knowledge", parts[0]), ("Knowledge", parts[2]), EDGES[parts[1]]
        for rel in ((kind, a, b), (kind, b, a)) if kind == "CONFLICTS_WITH" else ((kind, a, b),):
            if rel in self.rels:
                return rel, (a, b)
        return None, (a, b)

    def holders(self, query: str | None) -> list[str]:
        """Where ``query`` is held, record by record (kind, key and the property)."""
        found = [
            f"{k[0]} {k[1]}.{name}"
            for k, props in self.nodes.items()
            for name, v in props.items()
            if not is_name(name) and not _vector(v) and holds(v, query)
        ]
        found += [
            f"{r[0]} {r[1][1]}->{r[2][1]}"
            for r, many in self.rels.items()
            for p in many
            if holds(text_of(p), query)
        ]
        return found
