"""Export through the API (``ctxnet export``): a user's knowledge and memory as JSONL that
``ctxnet import`` reads back.

One JSON object a line, in a stable order (so two exports of the same graph are the same
file): a header (``{"record": "export", ...}``), then the decisions, patterns and
constraints (``{"record": "decision", ...}``, oldest first), then the other notes (by id),
then the edges (by source, type, target); then conversation memory: the threads (by id),
each thread's messages (in order) and the insights extracted from it (by id); then the
sessions (oldest first, each with the pending actions it left and where they are now),
and each session's tool calls (in order). A note keeps its status, its merges (the creates
folded into it, for the record, newest first: all of them, through
``GET /v1/knowledge/{id}/merges`` when the note carries fewer inline) and, with
``--embeddings``, its vector; it is written with ``dedupe: false``, so an import makes each
note as it was, not folded into a look-alike.

Exporting, importing into an empty user and exporting again gives the same lines but for
what the import cannot carry over, as ``docs/import.md`` lists: the header's time and user,
each note's ``createdAt`` / ``updatedAt`` (the import's), and its ``merges`` and
``mergeCount`` (an import makes each note once; it does not replay the creates that were
folded into it); a thread's ``createdAt`` / ``updatedAt``; a session's ``startedAt`` /
``endedAt`` and its pending actions' ``createdAt`` / ``resolvedAt``; a pending action
carried more than once is carried once, straight to where it is (``carriedCount`` 1); a
tool call's ``recordedAt``, ``role`` and ``agentId`` (the importing key's). Messages keep
their times, insights their ids, extractor and time, pending actions their ids.
Insights saved with a session's wiki page are not exported (nor are the pages, goals,
skills, the profile, corrections, proposals and the journal). A note keeps its valid time
(``validFrom``, ``validUntil``; not an invalidation's reason). ``--as-of`` / ``--as-known-at``
export what was true, or what the memory held, at a time.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime
from typing import Any, TextIO
from urllib.parse import quote

from ctxnet.client import AsyncClient

#: Fields of a note an import sends back (the rest is the record's, or the import's).
NOTE_FIELDS = (
    "id", "title", "content", "type", "source", "confidence", "tags", "sourceRef", "validFrom", "validUntil",
    "data",
)  # fmt: skip
KINDS = ("decision", "pattern", "constraint")


async def _pages(client: AsyncClient, path: str, **query: Any) -> list[dict[str, Any]]:
    return [item async for item in client.iter_json(path, **query)]


async def run_export(
    client: AsyncClient,
    out: TextIO,
    *,
    embeddings: bool = False,
    as_of: str | None = None,
    as_known_at: str | None = None,
) -> dict[str, int]:
    """Write the client's user's knowledge to ``out``; the counts of each record. ``as_of``
    (valid time) keeps what was true then; ``as_known_at`` (record time) writes the notes as
    the memory held them then (the listing's ``asOf`` / ``asKnownAt``): decisions, patterns
    and constraints among them, with their fields as they are now, and the edges between
    them that were true (and recorded) then."""
    clocks = {k: v for k, v in (("asOf", as_of), ("asKnownAt", as_known_at)) if v is not None}
    me = await client.request_json("GET", "/v1/me")
    lines: list[dict[str, Any]] = [
        {
            "record": "export",
            "version": 1,
            "userId": me["userId"],
            "exportedAt": datetime.now(UTC).isoformat(),
        }
        | clocks
    ]
    project: set[str] = set()
    entries: list[dict[str, Any]] = []
    for kind in KINDS:
        for entry in await _pages(client, f"/v1/{kind}s", limit=500):
            project.add(entry["id"])
            entries.append({"record": kind} | entry)
    notes = await _pages(
        client, "/v1/knowledge", limit=500, includeEmbedding=str(embeddings).lower(), **clocks
    )
    if clocks:
        held = {n["id"] for n in notes}
        entries = [e for e in entries if e["id"] in held]
    entries.sort(key=lambda e: (e["createdAt"], e["id"]))
    lines += entries
    for note in sorted(notes, key=lambda n: n["id"]):
        if note["id"] in project:
            continue
        line = {"record": "note"} | {k: note[k] for k in NOTE_FIELDS if k in note}
        line |= {"status": note["status"], "dedupe": False, "createdAt": note["createdAt"]}
        line |= {"updatedAt": note["updatedAt"], "mergeCount": note.get("mergeCount", 0)}
        merges = note.get("merges", [])
        if note.get("mergeCount", 0) > len(merges):  # a note carries only its newest few inline
            merges = await _pages(client, f"/v1/knowledge/{quote(note['id'], safe='')}/merges", limit=500)
        line |= {"merges": merges}
        if embeddings and note.get("embedding"):
            line["embedding"] = note["embedding"]
        lines.append(line)
    edges = await _pages(client, "/v1/connections", limit=1000)
    if clocks:
        held = {n["id"] for n in notes}
        edges = [
            e for e in edges if {e["sourceId"], e["targetId"]} <= held and _edge_then(e, as_of, as_known_at)
        ]
    for edge in edges:
        lines.append({"record": "edge"} | {k: v for k, v in edge.items() if k != "createdAt"})
    memory = await _memory(client)
    lines += memory
    for line in lines:
        out.write(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n")
    counted = Counter(str(line["record"]) for line in memory)
    return {
        "entries": len(entries),
        "notes": len(lines) - 1 - len(entries) - len(edges) - len(memory),
        "edges": len(edges),
        "threads": counted["thread"],
        "messages": counted["message"],
        "insights": counted["insight"],
        "sessions": counted["session"],
        "toolCalls": counted["toolCall"],
    }


def _edge_then(edge: dict[str, Any], as_of: str | None, as_known_at: str | None) -> bool:
    """Whether an edge was recorded by ``as_known_at`` and true at ``as_of`` (either unset)."""
    made = _moment(edge["createdAt"])
    if as_known_at is not None and made > _moment(as_known_at):
        return False
    if as_of is None:
        return True
    start = _moment(edge["validFrom"]) if edge.get("validFrom") else made
    return start <= _moment(as_of) and (
        not edge.get("validUntil") or _moment(edge["validUntil"]) > _moment(as_of)
    )


def _moment(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


async def _memory(client: AsyncClient) -> list[dict[str, Any]]:
    """Threads with their messages and insights, then sessions with their tool calls."""
    lines: list[dict[str, Any]] = []
    insights: dict[str, list[dict[str, Any]]] = {}
    for insight in await _pages(client, "/v1/insights", limit=500):
        if insight.get("threadId"):  # those of saved sessions' pages stay with the pages
            insights.setdefault(insight["threadId"], []).append(insight)
    threads = sorted(await _pages(client, "/v1/threads", limit=500), key=lambda t: t["id"])
    for thread in threads:
        path = f"/v1/threads/{quote(thread['id'], safe='')}"
        thread["relatedThreads"] = sorted(thread["relatedThreads"])
        lines.append({"record": "thread"} | thread)
        for message in await _pages(client, f"{path}/messages", limit=1000):
            lines.append({"record": "message", "threadId": thread["id"]} | message)
        for insight in sorted(insights.get(thread["id"], []), key=lambda i: i["id"]):
            kept = {k: v for k, v in insight.items() if k not in ("sessionId", "pageSlug") and v is not None}
            lines.append({"record": "insight"} | kept | {"knowledgeIds": sorted(insight["knowledgeIds"])})
    sessions = await _pages(client, "/v1/sessions", limit=500)
    for session in sorted(sessions, key=lambda s: (s["startedAt"], s["id"])):
        lines.append({"record": "session"} | {k: v for k, v in session.items() if v is not None})
        path = f"/v1/sessions/{quote(session['id'], safe='')}/replay"
        for call in await _pages(client, path, limit=1000):
            lines.append({"record": "toolCall", "sessionId": session["id"]} | call)
    return lines
