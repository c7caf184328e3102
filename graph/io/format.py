"""The whole-user export format (``ctxnet export --all``, format :data:`FORMAT`): what it
holds, what it leaves out and why, and how a property's value is written as JSON.

A user's memory is every node that carries their ``userId`` and every relationship between
two of them. The format names each node by its labels and its properties, and each
relationship by its type, its two ends (the ``ref`` of each: the node's element id in the
exporting database, meaningful only inside one file) and its properties. Labels and types
come from the allow-lists here (:data:`KINDS`, :data:`SUBLABELS`, :data:`RELATIONSHIPS`):
a restore writes nothing else, and ``tests/unit/io/test_format.py`` fails on a label or
type the Cypher files write that these lists do not place.

Values: strings, booleans, integers and floats as JSON (an integer stays an integer, a
float keeps its ``.0``), lists of them as lists; temporal values, which JSON has not, as a
one-key object naming Neo4j's type with its text as ``toString`` writes it
(``{"datetime": "2026-12-02T06:28:45.665Z"}``, a zone id kept: ``...+01:00[Europe/Paris]``),
which Neo4j parses back to the same value. Vectors (``embedding``, a journal entry's
``vector``) are lists of floats, written back as 32-bit vectors as they were stored.
"""

from __future__ import annotations

from typing import Any

#: The version of the format; a restore refuses any other.
FORMAT = 1

#: The kinds of node a user owns, one label each (a node has exactly one), in the order an
#: export writes them.
KINDS = (
    "Knowledge", "MergedNote", "Thread", "Message", "Insight", "Agent", "Session", "PendingAction",
    "ToolCall", "Profile", "Preference", "Goal", "Skill", "WikiPage", "AgentDoc", "Correction",
    "CorrectionAck", "Proposal", "Access", "Mutation",
)  # fmt: skip
#: The other labels a node may carry beside its kind (a note's type, project context).
SUBLABELS = frozenset(
    {
        "Fact",
        "Concept",
        "Procedure",
        "Decision",
        "ProjectContext",
        "ArchitectureDecision",
        "Pattern",
        "Constraint",
    }
)
#: Every relationship type between a user's nodes.
RELATIONSHIPS = frozenset(
    {
        "RELATED_TO", "DEPENDS_ON", "SUPERSEDES", "CONFLICTS_WITH", "MERGED_FROM", "DERIVED_FROM",
        "HAS_MESSAGE", "NEXT", "LAST_MESSAGE", "HAS_INSIGHT", "EXTRACTED_FROM", "RELATED_THREAD",
        "RAN", "IN_SESSION", "PREVIOUS", "LEFT_OPEN", "CARRIES", "RECORDS", "SAVED_AS", "PREFERS",
        "PROMOTED_FROM", "SUBGOAL_OF", "DOCUMENTED_BY", "ANNOUNCES", "CHALLENGES", "ABOUT",
        "ACKNOWLEDGES", "CHANGED", "UNDOES",
    }
)  # fmt: skip
#: What carries a user's id but is not exported, and why (docs/import.md says the same).
LEFT_OUT = {
    "ApiKey": "API keys: secrets (their hashes) of the exporting deployment; the target has its own keys",
    "RateWindow": "per-key request counters of the current minute: the deployment's, not memory",
    "Job": "background jobs (extraction, maintenance) and their leases: a status of work in flight "
    "on the exporting server, meaningless on another",
}
#: Properties of the ``Tenant`` node an export leaves out: the gate's lock time, the
#: tombstone of a forgotten user, and a restore's own marks.
TENANT_LEFT_OUT = frozenset(
    {"userId", "lockedAt", "forgottenAt", "restoring", "restoreFrom", "restoreSha256", "restoreRecords",
     "restoreHeader", "restoreDone", "restoreStartedAt"}
)  # fmt: skip
#: Properties a restore sets itself rather than take from the file: the owner, and the
#: owner's one-token digest the fulltext indexes narrow by (graph/core/tenancy.py).
OWNED = frozenset({"userId", "tenantKey"})
#: Properties that name the user (as the target of a change of their profile).
NAMING_THE_OWNER = frozenset({"targetId"})
#: Properties holding a vector, written back with ``db.create.setNodeVectorProperty``.
VECTORS = frozenset({"embedding", "vector", "notifyEmbedding"})
#: Neo4j's temporal types (as ``valueType`` names them), by the key a value is written under.
TEMPORAL = {
    "ZONED DATETIME NOT NULL": "datetime",
    "LOCAL DATETIME NOT NULL": "localdatetime",
    "DATE NOT NULL": "date",
    "ZONED TIME NOT NULL": "time",
    "LOCAL TIME NOT NULL": "localtime",
    "DURATION NOT NULL": "duration",
}
_PLAIN = ("STRING", "INTEGER", "FLOAT", "BOOLEAN")
#: The value types a property may have (a list of one of them, empty lists included).
PLAIN_TYPES = frozenset(
    {f"{t} NOT NULL" for t in _PLAIN}
    | {f"LIST<{t} NOT NULL> NOT NULL" for t in _PLAIN}
    | {"LIST<NOTHING> NOT NULL"}
)


class FormatError(ValueError):
    """A value or record this format cannot carry; the message says which and why."""


def encode(props: list[dict[str, Any]], where: str) -> dict[str, Any]:
    """Properties as the export writes them, from rows ``{key, type, value}`` (``value``: a
    temporal's text); ``where`` names the node or relationship in an error."""
    out: dict[str, Any] = {}
    for prop in sorted(props, key=lambda p: str(p["key"])):
        kind = str(prop["type"])
        if kind in TEMPORAL:
            out[prop["key"]] = {TEMPORAL[kind]: prop["value"]}
        elif kind in PLAIN_TYPES:
            out[prop["key"]] = prop["value"]
        else:
            raise FormatError(f"{where}: property {prop['key']} is a {kind}, which this format cannot carry")
    return out


def decode(
    properties: dict[str, Any], where: str
) -> tuple[dict[str, Any], list[dict[str, str]], list[dict[str, Any]]]:
    """Properties of a record as a restore writes them: plain values, temporal values
    (``{key, type, value}``: Cypher parses the text) and vectors (``{key, value}``)."""
    plain: dict[str, Any] = {}
    temporal: list[dict[str, str]] = []
    vectors: list[dict[str, Any]] = []
    kinds = set(TEMPORAL.values())
    for key, value in properties.items():
        if key in OWNED:
            continue
        if isinstance(value, dict):
            [(kind, text)] = value.items() if len(value) == 1 else [("", None)]
            if kind not in kinds or not isinstance(text, str):
                raise FormatError(f"{where}.{key}: a temporal value is one of {sorted(kinds)} with its text")
            temporal.append({"key": key, "type": kind, "value": text})
        elif key in VECTORS and isinstance(value, list) and value and all(_number(v) for v in value):
            vectors.append({"key": key, "value": [float(v) for v in value]})
        elif _scalar(value) or (isinstance(value, list) and _homogeneous(value)):
            plain[key] = value
        else:
            raise FormatError(f"{where}.{key}: not a value a property can hold")
    return plain, temporal, vectors


def rewrite_owner(properties: dict[str, Any], old: str, new: str) -> int:
    """Replace, in place, the values of :data:`NAMING_THE_OWNER` equal to ``old`` with ``new``
    (a profile's journal entries, corrections and proposals name their user as their
    target); how many (0 or 1)."""
    changed = 0
    for key in NAMING_THE_OWNER & properties.keys():
        if old != new and properties[key] == old:
            properties[key] = new
            changed += 1
    return changed


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _scalar(value: Any) -> bool:
    return isinstance(value, str | bool | int | float)


def _homogeneous(values: list[Any]) -> bool:
    """A list Neo4j stores: items of one type (integers and floats apart), none null."""
    if not values:
        return True
    first = type(values[0])
    return _scalar(values[0]) and all(type(v) is first for v in values)
