"""What a user's whole export must hold after ``POST /v1/forget``, worked out from what it
held before by the forget's semantics and nothing else (an oracle the test holds the service
to, record by record):

* what a match reaches **goes** (notes with their merge records, insights, wiki pages, goals,
  skills, tool calls, pending actions, preferences, agent doc lines; a thread named by ``ids``
  alone, with its messages) or **is changed** and stays (a message's content, a thread's
  topic, a session's text, an edge's note, the profile's background, an agent's base
  instructions): ``[forgotten]`` in place of a text that held the query, a list without the
  items that held it;
* its **traces**: corrections and proposals go, journal entries are scrubbed (they keep their
  place, lose ``before``/``after`` and any vector): those of a thing that goes, those of a
  changed thing that hold the text, and loose ones (their thing deleted before, or no longer
  holding the text) that hold it, within the window, when the match gives no tags or source
  (and, with ``ids``, about a thing named); never one whose thing stays and still holds it;
* the notice a forgotten decision left in a conversation says so instead (and its journal
  entry is scrubbed), as docs/forgetting.md has it, whatever the match;
* a note only forgotten notes superseded is active again; the run adds its own journal
  entries (``memory.forget``, ``note.status`` of each note made active) and nothing else;
* **every other record is unchanged, byte for byte**, but for a thread's gist (its vectors,
  which a background task makes again after its messages change, on its own schedule).

With a query and no other criterion, nothing the run leaves holds the query at all."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from tests.integration.project.export_records import (
    Export,
    Match,
    NodeKey,
    RelKey,
    fold,
    holds,
    is_name,
    moment,
    strings,
    text_of,
)

FORGOTTEN = "[forgotten]"
#: What the notice a forgotten decision left in a conversation says instead (docs/forgetting.md).
NOTICE_GONE = "[CONTEXT UPDATE] A decision announced here was forgotten."
#: Kinds that go when a match reaches them, and the property holding each one's own time.
GOES = {
    "Knowledge": "createdAt",
    "Insight": "extractedAt",
    "WikiPage": "savedAt",
    "Goal": "createdAt",
    "Skill": "createdAt",
    "ToolCall": "at",
    "PendingAction": "createdAt",
    "Preference": "setAt",
    "AgentDoc": None,
}
#: What ``ids`` names (and a thread, when ``ids`` is the only criterion).
NAMED_BY_ID = {"Knowledge", "Insight", "WikiPage", "Goal", "Skill", "PendingAction"}
#: Kinds that stay, changed: the fields that lose the text, and the property of their own time.
CHANGES = {
    "Message": (("content",), "createdAt"),
    "Thread": (("topic",), "createdAt"),
    "Session": (("topic", "openingMessage", "summary", "topics", "keyDecisions"), "startedAt"),
    "Profile": (("background",), "createdAt"),
    "Agent": (("baseInstructions",), "createdAt"),
}
EDGE_TYPES = {"RELATED_TO", "DEPENDS_ON", "SUPERSEDES", "CONFLICTS_WITH"}
#: Properties a forget may rewrite on a thing it changed or whose parts went (bookkeeping, vectors,
#: the copy a session or page keeps of the request that made it).
DRIFT = {
    "Thread": {"embedding", "embeddingModel", "notifyEmbedding", "notifyModel", "embeddedSeq", "updatedAt"},
    "Session": {"endedWith", "updatedAt"},
    "WikiPage": {"savedWith"},
    "Profile": {"updatedAt"},
    "Agent": {"docsUpdatedAt", "updatedAt"},
    "Message": set(),
    "Knowledge": {"updatedAt", "personFields"},
}
#: What a scrubbed journal entry loses.
SCRUBBED_AWAY = {"before", "after", "vector", "vectorModel"}
TRACES = {"Mutation": "at", "Correction": "at", "Proposal": "createdAt"}
#: A source reference the service writes itself (``thread:<id>``): a name, not text.
REFERENCE = re.compile(r"^(thread|session|page):[A-Za-z0-9._:@-]+$")


@dataclass
class Verdict:
    """What a run must do to an export: what goes, what changes (to what), what it may touch,
    which notes are active again, which entries are scrubbed, which relationships lose their
    note."""

    gone: set[NodeKey] = field(default_factory=set)
    changed: dict[NodeKey, dict[str, Any]] = field(default_factory=dict)
    touched: set[NodeKey] = field(default_factory=set)
    restored: set[NodeKey] = field(default_factory=set)
    scrubbed: set[NodeKey] = field(default_factory=set)
    rels_changed: dict[RelKey, list[dict[str, Any]]] = field(default_factory=dict)
    #: Notices of forgotten decisions: changed, and their journal entries scrubbed with them.
    notices: set[NodeKey] = field(default_factory=set)

    @property
    def empty(self) -> bool:
        """Whether the run forgets nothing (it may then journal nothing either)."""
        return not (self.gone or self.changed or self.scrubbed or self.rels_changed or self.restored)

    def counts(self) -> dict[str, int]:
        """How many of each kind go, change or are scrubbed."""
        out: dict[str, int] = {}
        for prefix, keys in (("gone", self.gone), ("changed", self.changed)):
            for kind, _ in keys:
                out[f"{prefix} {kind}"] = out.get(f"{prefix} {kind}", 0) + 1
        return out | {
            "changed edges": len(self.rels_changed),
            "restored": len(self.restored),
            "scrubbed": len(self.scrubbed),
        }


def expect(before: Export, m: Match) -> Verdict:
    """What ``m`` does to the export ``before``."""
    v = Verdict()
    for key, props in before.nodes.items():
        if key[0] in GOES and _reached(before, m, key, props):
            v.gone.add(key)
    if m.only_ids:
        for thread in m.ids or ():
            if ("Thread", thread) in before.nodes:
                v.gone |= {("Thread", thread), *before.linked("HAS_MESSAGE", start=("Thread", thread))}
    if m.query is not None and not m.notes_only and m.ids is None:
        _changes(before, m, v)
    for key in list(v.gone):
        if key[0] == "Knowledge":
            v.gone |= set(before.linked("MERGED_FROM", start=key))
    v.gone |= {
        k
        for k, p in before.nodes.items()
        if k[0] == "MergedNote" and ("Knowledge", p.get("heldNote")) in v.gone
    }
    for key, props in before.nodes.items():  # the notices a forgotten decision left in conversations
        if key[0] == "Message" and set(before.linked("ANNOUNCES", start=key)) & v.gone:
            v.changed[key], v.notices = props | {"content": NOTICE_GONE}, v.notices | {key}
    _touched(before, v)
    for note, props in before.of("Knowledge"):
        into = before.linked("SUPERSEDES", end=("Knowledge", note))
        if (
            ("Knowledge", note) not in v.gone
            and props.get("status") == "superseded"
            and into
            and set(into) <= v.gone
        ):
            v.restored.add(("Knowledge", note))
    _traces(before, m, v)
    return v


def _reached(before: Export, m: Match, key: NodeKey, props: dict[str, Any]) -> bool:
    kind = key[0]
    if kind != "Knowledge" and (m.notes_only or (m.ids is None and m.query is None)):
        return False
    if m.tags is not None and not set(props.get("tags") or ()) & set(m.tags):
        return False
    if m.source is not None and props.get("source") != m.source:
        return False
    if m.ids is not None and (kind not in NAMED_BY_ID or key[1] not in m.ids):
        return False
    text = (
        text_of(props) + [text_of(r) for r in before.merged(key[1])]
        if kind == "Knowledge"
        else text_of(props)
    )
    if m.query is not None and not holds(text, m.query):
        return False
    time = GOES[kind]
    return m.within(moment(props.get(time)) if time else None)


def _changes(before: Export, m: Match, v: Verdict) -> None:
    """The things a query changes (no ids, tags or source), and the edges that lose their note."""
    for kind, (fields, time) in CHANGES.items():
        for key, props in before.of(kind):
            if (kind, key) in v.gone or not m.within(moment(props.get(time))):
                continue
            new = dict(props)
            for name in fields:
                value = props.get(name)
                if isinstance(value, list):
                    new[name] = [item for item in value if not holds(item, m.query)]
                elif value is not None and holds(value, m.query):
                    new[name] = FORGOTTEN
            if new != props:
                v.changed[(kind, key)] = new
    for rel, many in before.rels.items():
        if rel[0] in EDGE_TYPES and rel[1] not in v.gone and rel[2] not in v.gone:
            kept = [{k: x for k, x in p.items() if k != "note"} if _note_holds(p, m) else p for p in many]
            if kept != many:
                v.rels_changed[rel] = kept


def _note_holds(props: dict[str, Any], m: Match) -> bool:
    return holds(props.get("note"), m.query) and m.within(moment(props.get("createdAt")))


def _touched(before: Export, v: Verdict) -> None:
    """The things whose parts went or changed: they may drift in bookkeeping (:data:`DRIFT`)."""
    v.touched |= set(v.changed)
    for kind, key in v.gone | set(v.changed):
        props = before.nodes[(kind, key)]
        if kind == "Message":
            v.touched |= set(before.linked("HAS_MESSAGE", end=(kind, key)))
        elif kind in ("ToolCall", "PendingAction"):
            v.touched |= {("Session", str(props.get(n))) for n in ("sessionId", "originSessionId")}
        elif kind == "WikiPage":
            v.touched |= set(before.linked("SAVED_AS", end=(kind, key)))
        elif kind == "Insight" and props.get("pageSlug"):
            v.touched.add(("WikiPage", props["pageSlug"]))
        elif kind == "Preference":
            v.touched.add(("Profile", ""))
        elif kind == "AgentDoc":
            v.touched.add(("Agent", str(props.get("agentId"))))
    v.touched = {k for k in v.touched if k in before.nodes and k not in v.gone}


def _fate(before: Export, v: Verdict, m: Match, kind: str | None, target: Any) -> str:
    """What becomes of a trace's thing: ``gone``, ``changed``, ``holds`` (stays and still
    holds the text) or ``loose`` (deleted before, or no longer holding the text)."""
    if kind == "Edge":
        rel, ends = before.edge(str(target))
        if ends is not None and (ends[0] in v.gone or ends[1] in v.gone):
            return "gone"
        if rel is None:
            return "loose"
        if rel in v.rels_changed:
            return "changed"
        return "holds" if any(holds(p.get("note"), m.query) for p in before.rels[rel]) else "loose"
    key = ("Profile", "") if kind == "Profile" else (str(kind), str(target))
    if key in v.gone or key in v.notices:
        return "gone"
    if key in v.changed:
        return "changed"
    if key not in before.nodes:
        return "loose"
    return "holds" if holds(_live_text(before, v, key), m.query) else "loose"


def _live_text(before: Export, v: Verdict, key: NodeKey) -> list[Any]:
    """What a thing that stays holds after the run: itself with the parts that stay."""
    kind, name = key
    text = text_of(before.nodes[key])
    parts: list[NodeKey] = []
    if kind == "Knowledge":
        parts = before.linked("MERGED_FROM", start=key)
    elif kind == "Session":
        parts = [
            k
            for k, p in before.nodes.items()
            if k[0] in ("ToolCall", "PendingAction")
            and name in (p.get("sessionId"), p.get("originSessionId"))
        ]
    elif kind == "Profile":
        parts = [k for k in before.nodes if k[0] == "Preference"]
    elif kind == "Agent":
        parts = [k for k, p in before.nodes.items() if k[0] == "AgentDoc" and p.get("agentId") == name]
    return text + [text_of(before.nodes[p]) for p in parts if p not in v.gone]


def _target(props: dict[str, Any], kind: str) -> tuple[str | None, Any]:
    """The kind and id of what a trace is about."""
    if kind == "Proposal" and "targetType" not in props:
        op = str(props.get("op", ""))
        found = {"note": "Knowledge", "edge": "Edge", "profile": "Profile"}.get(op.split(".")[0])
        return found, props.get("targetId")
    return props.get("targetType"), props.get("targetId")


def _traces(before: Export, m: Match, v: Verdict) -> None:
    """Corrections and proposals first (journal entries may be about them), then the journal."""
    for kinds in (("Correction", "Proposal"), ("Mutation",)):
        for key, props in before.nodes.items():
            if key[0] not in kinds:
                continue
            about, target = _target(props, key[0])
            fate = _fate(before, v, m, about, target)
            loose = (
                m.query is not None
                and not m.notes_only
                and (m.ids is None or target in m.ids)
                and m.within(moment(props.get(TRACES[key[0]])))
            )
            if fate == "gone" or (
                holds(text_of(props), m.query) and (fate == "changed" or (fate == "loose" and loose))
            ):
                (v.scrubbed if key[0] == "Mutation" else v.gone).add(key)
    v.gone |= {
        k
        for k, p in before.nodes.items()
        if k[0] == "CorrectionAck" and ("Correction", p.get("correctionId")) in v.gone
    }
    v.gone |= {
        k
        for k, p in before.nodes.items()
        if k[0] == "MergedNote" and ("Mutation", p.get("heldBy")) in v.scrubbed
    }


def needles(before: Export, v: Verdict, m: Match, least: int = 12) -> list[str]:
    """Texts the run takes out of the user's memory altogether: every text (of at least
    ``least`` characters) of what goes, of the fields a change replaces and of the states a
    scrub empties, that nothing which stays still holds; and the query, when nothing holds it."""
    kept: list[str] = []
    for key, props in before.nodes.items():
        if key in v.gone:
            continue
        if key in v.scrubbed:
            props = {k: x for k, x in props.items() if k not in SCRUBBED_AWAY}
        props = v.changed.get(key, props)
        if key in v.touched:
            props = {k: x for k, x in props.items() if k not in DRIFT.get(key[0], set())}
        kept += strings(text_of(props))
    for rel, many in before.rels.items():
        if rel[1] not in v.gone and rel[2] not in v.gone:
            kept += strings([text_of(p) for p in v.rels_changed.get(rel, many)])
    blob = "\0".join(fold(s) for s in kept)
    taken: set[str] = set()
    for key in v.gone | v.scrubbed | set(v.changed):
        props = before.nodes[key]
        taken |= set(leaves({k: x for k, x in props.items() if key not in v.scrubbed or k in SCRUBBED_AWAY}))
    for rel in v.rels_changed:
        taken |= {str(p["note"]) for p in before.rels[rel] if "note" in p}
    found = sorted(t for t in taken if len(t) >= least and fold(t) not in blob)
    return found + ([m.query] if m.query is not None and fold(m.query) not in blob else [])


def leaves(value: Any, key: str = "") -> list[str]:
    """The texts in a record's values (JSON text read through), not its names, ids or times."""
    if is_name(key) or isinstance(value, dict) and set(value) == {"datetime"}:
        return []
    if isinstance(value, str):
        if REFERENCE.match(value):
            return []  # where a pipeline's note came from: an id
        if value[:1] in ("[", "{"):
            try:
                return leaves(json.loads(value), key)
            except ValueError:
                pass
        return [value]
    if isinstance(value, list | tuple):
        return [t for item in value for t in leaves(item, key)]
    if isinstance(value, dict):
        return [t for k, item in value.items() for t in leaves(item, str(k))]
    return []
