"""Every string a user can store, generated from the routes: a forget's query reaches each.

Alice's memory gets one of each thing (``seed_everything``), then every write operation of
the live OpenAPI document is called as alice with a body that fills every field, optional
ones included, with a text of hers. Then every stored string property of her nodes and
edges is either a field the forget matches (``forget_plan.FIELDS``, or a trace's) or one
listed below as not text a user writes, with its reason: a field added tomorrow fails here
until it is placed. And after forgetting that text by query (in capitals, so the caseless
match is what finds it), no property of hers holds it anywhere, in any field, nor does any
journal state.
"""

from __future__ import annotations

import uuid
from typing import Any, LiteralString

import httpx
import pytest

from graph.core.folding import fold
from graph.project.forget_plan import FIELDS
from tests.integration.conftest import MakeCaller, inspect
from tests.support.sweep import NAMED, resolve_schema, seed_everything

pytestmark = pytest.mark.integration

#: The node labels of a user's things, by the kind the forget names them.
KINDS = {
    "Knowledge": "note", "MergedNote": "note", "Insight": "insight", "WikiPage": "wikiPage",
    "Goal": "goal", "Skill": "skill", "ToolCall": "toolCall", "PendingAction": "pendingAction",
    "Preference": "preference", "AgentDoc": "agentDoc", "Message": "message", "Thread": "thread",
    "Session": "session", "Profile": "profile", "Agent": "agent",
}  # fmt: skip
#: The traces' text fields (forget_match_trace_text.cypher).
TRACES = {
    "Mutation": {"before", "after"},
    "MergedNote": {"before", "after"},
    "Correction": {"before", "after", "embeddedText", "reason"},
    "Proposal": {"payload", "decisionReason"},
}
#: String properties that are not text a user writes: ids and keys (names, not content:
#: docs/forgetting.md), enumerations, model names, roles, hashes.
NOT_TEXT = {
    "*": {"id", "userId", "status", "createdByRole", "createdByAgent", "embeddingModel", "tenantKey",
          "agentId", "sessionId", "threadId", "personFields", "updatedByRole", "updatedByAgent", "role",
          "keyId", "notifyModel", "vectorModel", "type", "kind"},
    "Knowledge": {"proposedByAgent", "proposedByRole", "agents", "decidedOn"},
    "MergedNote": {"heldBy", "heldNote"},
    "Insight": {"key", "extractor", "pageSlug", "insightId"},
    "WikiPage": {"slug", "savedByRole"},
    "Goal": {"parentId", "closedByRole", "closedByAgent"},
    "Skill": set(),
    "PendingAction": {"originSessionId", "resolvedByRole", "resolvedByAgent"},
    "Preference": {"insightId", "correctionId", "setByRole", "setByAgent"},
    "Profile": {"backgroundSetByRole", "backgroundSetByAgent", "backgroundCorrectionId", "removedByPerson"},
    "Session": set(),
    "Thread": {"contextType"},
    "Mutation": {"op", "targetType", "targetId", "undoes", "proposalId"},
    "Correction": {"mutationId", "targetType", "targetId", "fields", "fingerprint", "retiredBy"},
    "Proposal": {"op", "targetId", "changeKey", "fields", "correctionIds", "mutationIds", "decidedByKey"},
    "CorrectionAck": {"correctionId", "actionTaken"},
    "Job": {"owner", "params", "counts", "report", "error"},
    "Access": {"actor"},
    "ApiKey": {"hash", "prefix", "label", "deskHash", "scopeIds", "scopeTags"},
    "RateWindow": {"window"},
    "Tenant": set(),
    "edge": {"createdByRole", "createdByAgent", "confirmedByPerson"},
}  # fmt: skip

NODES: LiteralString = """
MATCH (n) WHERE n.userId = $u
UNWIND keys(n) AS k
WITH labels(n) AS labels, k, n[k] AS v
WHERE v IS :: STRING OR v IS :: LIST<STRING NOT NULL>
RETURN labels, k, v
"""
EDGES: LiteralString = """
MATCH (a:Knowledge {userId: $u})-[r]->(b:Knowledge)
UNWIND keys(r) AS k
WITH k, r[k] AS v
WHERE v IS :: STRING OR v IS :: LIST<STRING NOT NULL>
RETURN ['edge'] AS labels, k, v
"""


def full(
    document: dict[str, Any], schema: dict[str, Any], ids: dict[str, str], text: str, name: str = ""
) -> Any:
    """A value for ``schema`` with every property, strings holding ``text``; id-like fields
    name alice's things (``None``: leave the property out)."""
    schema = resolve_schema(document, schema)
    for variant in schema.get("anyOf", []):
        if variant.get("type") != "null":
            return full(document, variant, ids, text, name)
    kind = schema.get("type")
    if kind is None and "x-bounded-json" in schema:  # any JSON value: the text in a key and nested
        return {f"k {text}": [f"Note on {text} for {name}.", {"deeper": f'{text} "quoted"'}], "n": 1}
    if name in NAMED:
        return [ids[NAMED[name]]] if kind == "array" else ids[NAMED[name]]
    if "enum" in schema:
        return schema["enum"][0]
    if kind == "object":
        properties = schema.get("properties", {})
        if not properties and isinstance(schema.get("additionalProperties"), dict):
            return {f"k{text[-4:]}": full(document, schema["additionalProperties"], ids, text, "value")}
        values = {key: full(document, value, ids, text, key) for key, value in properties.items()}
        return {key: value for key, value in values.items() if value is not None}
    if kind == "array":
        if name in ("embedding", "vector"):
            return None
        return [full(document, schema.get("items", {}), ids, f"{text} {n}", name) for n in range(3)]
    if kind in ("integer", "number"):
        return None if name == "position" else schema.get("minimum", 1)
    if kind == "boolean":
        return False
    if schema.get("format") == "date-time" or name == "date":
        day = {"validUntil": "2026-06-01", "validFrom": "2026-01-01"}.get(name, "2026-01-02")
        return day if name == "date" else f"{day}T03:04:05Z"
    if name in ("id", "slug") or name.endswith(("Id", "Ids")) or "pattern" in schema:
        return f"f{uuid.uuid4().hex[:12]}" if name in ("id", "slug") or "pattern" in schema else None
    return f"Note on {text} for {name or 'it'}."[: int(schema.get("maxLength", 10_000))]


async def write_everything(document: dict[str, Any], alice: Any, ids: dict[str, str], text: str) -> int:
    """Every write operation as alice, every field filled and a reason given; how many were
    taken (2xx)."""
    taken = 0
    reason = {"X-Change-Reason": f"Because of {text}.".encode("latin-1")}  # as Starlette reads it
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if method not in ("post", "put", "patch") or "forget" in path or "undo" in path:
                continue
            url = path
            for param in (p for p in operation.get("parameters", []) if p["in"] == "path"):
                key = NAMED.get(param["name"]) or _resource(path)
                url = url.replace("{" + param["name"] + "}", ids.get(key or "", "x"))
            content = operation.get("requestBody", {}).get("content", {}).get("application/json")
            body = full(document, content["schema"], ids, text) if content else None
            answer = await alice.http.request(method, url, json=body, headers=reason)
            assert answer.status_code < 500, (method, url, answer.text)
            taken += answer.status_code < 300
    return taken


async def write_more(alice: Any, ids: dict[str, str], text: str) -> None:
    """What the walk above cannot reach, its things being made already: an edge with a
    note, an invalidation's reason, a session that ends with topics and decisions."""
    edge = {"type": "dependsOn", "targetId": ids["note"], "note": f"Set up by {text}."}
    assert (await alice.http.post(f"/v1/knowledge/{ids['note2']}/connections", json=edge)).status_code == 201
    gone = {"reason": f"{text} replaced it."}
    assert (await alice.http.post(f"/v1/knowledge/{ids['note2']}/invalidate", json=gone)).status_code == 200
    session = f"s2-{uuid.uuid4().hex[:8]}"
    started = await alice.http.post(
        "/v1/sessions", json={"id": session, "agentId": "helper", "topic": "later"}
    )
    assert started.status_code == 201, started.text
    end = {"summary": "Done.", "topics": [f"{text} call", "other"], "keyDecisions": [f"Ask {text}"]}
    assert (await alice.http.post(f"/v1/sessions/{session}/end", json=end)).status_code == 200


def _resource(path: str) -> str | None:
    from tests.support.resources import RESOURCES

    return RESOURCES.get(path.split("/")[2])


async def test_a_query_reaches_every_field_a_user_writes(make_caller: MakeCaller, api: Any, db: Any) -> None:
    alice = await make_caller()
    text = f"Émile{uuid.uuid4().hex[:8]}"
    ids = await seed_everything(alice, make_caller, text)
    document = httpx.get(f"{api.base_url}/openapi.json", timeout=30).json()
    assert await write_everything(document, alice, ids, text) > 20
    await write_more(alice, ids, text)

    rows = await inspect(db, NODES, u=alice.user_id) + await inspect(db, EDGES, u=alice.user_id)
    unplaced = set()
    for row in rows:
        label = next(
            (x for x in row["labels"] if x in KINDS or x in NOT_TEXT or x in TRACES), row["labels"][0]
        )
        known = NOT_TEXT["*"] | NOT_TEXT.get(label, set()) | TRACES.get(label, set())
        known |= set(FIELDS.get("edge" if label == "edge" else KINDS.get(label, ""), []))
        if row["k"] not in known:
            unplaced.add(f"{label}.{row['k']}")
    assert not unplaced, f"string fields the forget neither matches nor knows as not text: {sorted(unplaced)}"

    holding = _holding(rows, text)
    assert len(holding) >= 35, f"the text was written to few fields: {sorted(holding)}"

    run = {"match": {"query": text.upper()}, "dryRun": False, "limit": 1_000_000}
    forgot = await alice.http.post("/v1/forget", json=run)
    assert forgot.status_code == 200, forgot.text
    left = _holding(
        await inspect(db, NODES, u=alice.user_id) + await inspect(db, EDGES, u=alice.user_id), text
    )
    assert not left, f"the forgotten text is still stored in {sorted(left)}"


def _holding(rows: list[dict[str, Any]], text: str) -> set[str]:
    """The fields (label.key) of ``rows`` that hold ``text``, caseless."""
    return {
        f"{row['labels'][0]}.{row['k']}"
        for row in rows
        if any(fold(text) in fold(v) for v in ([row["v"]] if isinstance(row["v"], str) else row["v"]))
    }
