"""Insights found outside the service, recorded into a thread (``POST
/v1/threads/{id}/insights``: an export read back, another extractor's findings).

Each is keyed, linked to its message and embedded as extraction stores them
(:mod:`graph.conversations.insights`), keeping the id, extractor and time it was given, and
may name the notes made from it; one already there is returned unchanged. Slow work (the
embedding) happens before the user's write gate; what is there is decided under it.
"""

from __future__ import annotations

from typing import Any

from graph.conversations.models import RecordedInsight, insight_key
from graph.core import journal
from graph.core.db import Database
from graph.core.embeddings import Embedder
from graph.core.errors import Conflict, InvalidInput, NotFound
from graph.core.gate import Gated, WriteGate
from graph.core.principals import Principal
from graph.core.scopes import require_unscoped
from graph.core.tenancy import tenant_key
from graph.core.values import check_id, plain, sortable_id
from graph.core.vectors import check_vectors


class InsightRecorder:
    """Record insights found outside the service into a user's thread."""

    def __init__(self, db: Database, gate: WriteGate, embedder: Embedder) -> None:
        self._db = db
        self._gate = gate
        self._embedder = embedder

    async def record(
        self, principal: Principal, thread_id: str, insights: list[RecordedInsight]
    ) -> list[tuple[dict[str, Any], bool]]:
        """Record insights found outside the service into a thread, in one transaction: each
        keyed, linked and embedded as extraction stores them, keeping the id, extractor and
        time it was given (an export read back is the same insight again). An insight already
        there (same message, type and content) is returned unchanged; each with whether it is
        new. Journaled as ``insight.create`` (and ``insight.consolidate`` for each note linked).
        """
        require_unscoped(principal, "conversation memory (threads, messages, insights)")
        thread_id = check_id(thread_id)
        if not insights:
            raise InvalidInput("send at least one insight", field="items")
        rows: list[dict[str, Any]] = []
        for n, item in enumerate(insights):
            check_id(item.message_id, f"items.{n}.messageId")
            for k, kid in enumerate(item.knowledge_ids):
                check_id(kid, f"items.{n}.knowledgeIds.{k}")
            if item.id is not None:
                check_id(item.id, f"items.{n}.id")
            rows.append({
                "id": item.id or sortable_id(),
                "key": insight_key(item.message_id, item.type.value, item.content),
                "messageId": item.message_id, "type": item.type.value, "content": item.content,
                "confidence": item.confidence, "extractor": item.extractor,
                "extractedAt": item.extracted_at.isoformat() if item.extracted_at else None,
                "knowledgeIds": list(dict.fromkeys(item.knowledge_ids)),
            })  # fmt: skip
        vectors = [i.embedding for i in insights]
        check_vectors(vectors, self._embedder.dimension, lambda n: f"items.{n}.embedding")
        for n, item in enumerate(insights):
            rows[n]["embedding"] = item.embedding
        rows, origin, given, folded = fold_repeats(rows, [i.id is not None for i in insights])
        asked = {
            "threadId": thread_id,
            "messageIds": [r["messageId"] for r in rows],
            "knowledgeIds": [k for r in rows for k in r["knowledgeIds"]],
            "ids": [r["id"] for r in rows],
            "keys": [r["key"] for r in rows],
        }
        # Slow work before the gate, not under it: the insights not stored yet are embedded
        # (one sent again is not embedded again); one deleted meanwhile is embedded under it.
        before = await self._db.read(
            "queries/conversations/insights_record_state", userId=principal.user_id, **asked
        )
        await self._embed(rows, {e["key"] for e in before[0]["byKey"]} if before else set())

        async def work(gated: Gated) -> list[tuple[dict[str, Any], bool]]:
            state = await gated.run("queries/conversations/insights_record_state", **asked)
            if not state:
                raise NotFound(f"no thread {thread_id!r}", field="id")
            found = state[0]
            await self._embed(rows, {e["key"] for e in found["byKey"]})
            messages, notes = set(found["messages"]), set(found["notes"])
            by_id = {e["id"]: e["key"] for e in found["byId"]}
            by_key = {e["key"]: e["id"] for e in found["byKey"]}
            for u, row in enumerate(rows):
                n = origin[u]
                if row["messageId"] not in messages:
                    raise NotFound(f"no message {row['messageId']!r} in thread {thread_id!r}",
                                   field=f"items.{n}.messageId")  # fmt: skip
                for k, kid in enumerate(row["knowledgeIds"]):
                    if kid not in notes:
                        raise NotFound(f"no note {kid!r}", field=f"items.{n}.knowledgeIds.{k}")
                if row["id"] in by_id and by_id[row["id"]] != row["key"]:
                    raise Conflict(
                        f"insight {row['id']!r} already exists with another message, type or content",
                        field=f"items.{n}.id",
                    )
                if row["key"] in by_key and given[u] and by_key[row["key"]] != row["id"]:
                    raise Conflict(
                        f"this insight already exists as {by_key[row['key']]!r}", field=f"items.{n}.id"
                    )
            result = await gated.run(
                "queries/conversations/insights_record",
                threadId=thread_id,
                rows=rows,
                embeddingModel=self._embedder.model_id,
                tenantKey=tenant_key(principal.user_id),
            )
            changes = []
            for row, stored in zip(rows, result, strict=True):
                if stored["created"]:
                    changes.append(journal.Change("insight.create", "Insight", str(stored["id"]), None, {
                        "threadId": thread_id, "messageId": row["messageId"], "type": row["type"],
                        "content": row["content"], "confidence": row["confidence"],
                        "extractor": row["extractor"],
                    }))  # fmt: skip
                changes += [
                    journal.Change(
                        "insight.consolidate",
                        "Insight",
                        str(stored["id"]),
                        None,
                        {"knowledgeId": kid, "updated": False},
                    )  # fmt: skip
                    for kid in stored["linked"]
                ]
            await journal.record_many(gated, principal, changes)
            ids = [str(r["id"]) for r in result]
            listed = await gated.run("queries/conversations/insights_by_ids", ids=ids)
            by = {r["insight"]["id"]: plain(r["insight"]) for r in listed}
            return [(by[ids[u]], bool(result[u]["created"]) and not repeat) for u, repeat in folded]

        return await self._gate.write(principal.user_id, work)

    async def _embed(self, rows: list[dict[str, Any]], stored: set[str]) -> None:
        """Vectors for the rows without one whose insight is not ``stored`` yet."""
        missing = [r for r in rows if r["embedding"] is None and r["key"] not in stored]
        if missing:
            vectors = await self._embedder.embed([r["content"] for r in missing])
            for row, vector in zip(missing, vectors, strict=True):
                row["embedding"] = vector


def fold_repeats(
    rows: list[dict[str, Any]], given: list[bool]
) -> tuple[list[dict[str, Any]], list[int], list[bool], list[tuple[int, bool]]]:
    """The insights of one request with each repeat (the same message, type and content as an
    earlier item) folded into its first listing, as a repeat sent in a later request is: its
    notes are linked too, and an id it gives must be the first's (else a :class:`Conflict`,
    as with an insight stored under another id). Two items of one id with other message,
    type or content are a :class:`Conflict`, as with an insight stored before.

    Returns the distinct rows, the item each came from, whether it was given its id, and
    for each item the row it folds into and whether it is a repeat."""
    distinct: list[dict[str, Any]] = []
    origin: list[int] = []
    ids_given: list[bool] = []
    folded: list[tuple[int, bool]] = []
    by_key: dict[str, int] = {}
    by_id: dict[str, int] = {}
    for n, row in enumerate(rows):
        u = by_key.get(row["key"])
        if u is None:
            if row["id"] in by_id:
                raise Conflict(
                    f"items {origin[by_id[row['id']]]} and {n} have the same id but another message, "
                    "type or content",
                    field=f"items.{n}.id",
                )
            u = by_key[row["key"]] = by_id[row["id"]] = len(distinct)
            distinct.append(row)
            origin.append(n)
            ids_given.append(given[n])
            folded.append((u, False))
            continue
        first = distinct[u]
        if given[n] and row["id"] != first["id"]:
            if row["id"] in by_id:
                raise Conflict(
                    f"items {origin[by_id[row['id']]]} and {n} have the same id but another message, "
                    "type or content",
                    field=f"items.{n}.id",
                )
            if ids_given[u]:
                raise Conflict(
                    f"items {origin[u]} and {n} are one insight (the same message, type and content) "
                    "with two ids",
                    field=f"items.{n}.id",
                )
            first["id"] = row["id"]  # the first item's id was made up here: the given one
            ids_given[u] = True
            by_id[row["id"]] = u
        first["knowledgeIds"] = list(dict.fromkeys([*first["knowledgeIds"], *row["knowledgeIds"]]))
        folded.append((u, True))
    return distinct, origin, ids_given, folded
