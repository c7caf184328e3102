"""Conversation threads and their ordered messages.

A thread (``contextType`` support, research, planning or general; a topic) holds its
messages in order: every message hangs off the thread (``HAS_MESSAGE``) and follows the
previous one (``NEXT``), with ``LAST_MESSAGE`` pointing at the newest, so Neo4j Browser
shows a conversation as a chain. Appends are idempotent by message id.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from neo4j import AsyncManagedTransaction

from graph.conversations.gists import ThreadGists
from graph.conversations.models import ContextType, NewMessage
from graph.core import journal
from graph.core.db import Database, Row, run_rows
from graph.core.embeddings import Embedder
from graph.core.errors import Conflict, InvalidInput, NotFound
from graph.core.gate import Gated, WriteGate
from graph.core.principals import Principal
from graph.core.scopes import require_unscoped
from graph.core.values import check_id, data_view, decode_cursor, decode_seq_cursor, encode_cursor, plain

MAX_MESSAGES_PER_APPEND = 1_000


async def require_thread(db: Database, user_id: str, thread_id: str, field: str = "id") -> dict[str, Any]:
    """The user's thread, or :class:`NotFound` naming ``field``."""
    rows = await db.read("queries/conversations/threads_by_ids", userId=user_id, ids=[thread_id])
    if not rows:
        raise NotFound(f"no thread {thread_id!r}", field=field)
    thread: dict[str, Any] = plain(rows[0]["thread"])
    return thread


class ThreadService:
    """Threads and messages of the calling user."""

    def __init__(
        self,
        db: Database,
        embedder: Embedder | None = None,
        gists: ThreadGists | None = None,
        second: Embedder | None = None,
    ) -> None:
        self._db = db
        self._gate = WriteGate(db)
        #: Embeds a new thread's topic, its first gist; ``gists`` refreshes it after appends
        #: (a new architectural decision finds the conversations it may affect by them).
        self._embedder = embedder
        self._gists = gists
        #: The second model that compares decisions with threads (graph/project/notify.py), if any.
        self._second = second

    async def create_thread(
        self, principal: Principal, *, thread_id: str | None, context_type: ContextType, topic: str
    ) -> tuple[dict[str, Any], bool]:
        """Create a thread; an existing id returns it unchanged (409 if it differs)."""
        require_unscoped(principal, "conversation memory (threads, messages, insights)")
        tid = check_id(thread_id) if thread_id else uuid.uuid4().hex
        vector: list[float] | None = None
        second: list[float] | None = None
        if self._embedder is not None and topic.strip():
            [vector] = await self._embedder.embed([topic])  # slow: before the gate, not under it
            if self._second is not None:
                [second] = await self._second.embed([topic])

        async def work(gated: Gated) -> tuple[Row, list[Row]]:
            [row] = await gated.run(
                "queries/conversations/thread_create",
                id=tid,
                contextType=context_type.value,
                topic=topic,
                role=principal.role.value,
                agentId=principal.agent_id,
                embedding=vector,
                embeddingModel=self._embedder.model_id if vector is not None and self._embedder else None,
                notifyEmbedding=second,
                notifyModel=self._second.model_id if second is not None and self._second else None,
            )
            if row["created"]:
                await journal.record_many(gated, principal, [journal.Change(
                    "thread.create", "Thread", tid, None, {"contextType": context_type.value, "topic": topic}
                )])  # fmt: skip
            return row, await gated.run("queries/conversations/threads_by_ids", ids=[tid])

        row, threads = await self._gate.write(principal.user_id, work)
        if not row["created"] and (row["contextType"], row["topic"]) != (context_type.value, topic):
            raise Conflict(f"thread {tid!r} already exists with another contextType or topic", field="id")
        return plain(threads[0]["thread"]), bool(row["created"])

    async def get_thread(self, principal: Principal, thread_id: str) -> dict[str, Any]:
        """One thread with its related threads."""
        require_unscoped(principal, "conversation memory (threads, messages, insights)")
        return await require_thread(self._db, principal.user_id, thread_id)

    async def list_threads(
        self,
        principal: Principal,
        *,
        context_type: ContextType | None = None,
        limit: int = 50,
        cursor: str | None = None,
    ) -> tuple[list[dict[str, Any]], str | None]:
        """A page of threads, most recently active first."""
        require_unscoped(principal, "conversation memory (threads, messages, insights)")
        after_updated, after_id = decode_cursor(cursor) if cursor else (None, None)
        user = principal.user_id

        async def work(tx: AsyncManagedTransaction) -> tuple[list[Row], list[Row]]:
            page = await run_rows(
                tx,
                "queries/conversations/thread_list",
                userId=user,
                contextType=context_type.value if context_type else None,
                afterUpdatedAt=after_updated,
                afterId=after_id,
                limit=limit + 1,
            )
            ids = [r["id"] for r in page[:limit]]
            return page, await run_rows(tx, "queries/conversations/threads_by_ids", userId=user, ids=ids)

        page, threads = await self._db.read_tx(work)
        by_id = {row["thread"]["id"]: plain(row["thread"]) for row in threads}
        items = [by_id[r["id"]] for r in page[:limit] if r["id"] in by_id]
        more = len(page) > limit
        return items, encode_cursor(page[limit - 1]["updatedAt"], page[limit - 1]["id"]) if more else None

    async def link(
        self, principal: Principal, thread_id: str, other_id: str, *, remove: bool = False
    ) -> None:
        """Relate (or unrelate) two of the caller's threads."""
        require_unscoped(principal, "conversation memory (threads, messages, insights)")
        if thread_id == other_id:
            raise Conflict("a thread cannot be linked to itself", field="threadId")
        query = "queries/conversations/thread_unlink" if remove else "queries/conversations/thread_link"

        async def work(gated: Gated) -> list[Row]:
            found = {
                r["thread"]["id"]
                for r in await gated.run("queries/conversations/threads_by_ids", ids=[thread_id, other_id])
            }
            for field, tid in (("id", thread_id), ("threadId", other_id)):
                if tid not in found:
                    raise NotFound(f"no thread {tid!r}", field=field)
            rows = await gated.run(query, id=thread_id, otherId=other_id)
            if rows and rows[0].get("created" if not remove else "unlinked"):
                link = {"threadId": other_id}
                op = "thread.unlink" if remove else "thread.link"
                before, after = (link, None) if remove else (None, link)
                change = journal.Change(op, "Thread", thread_id, before, after)
                await journal.record_many(gated, principal, [change])
            return rows

        rows = await self._gate.write(principal.user_id, work)
        if remove and (not rows or rows[0]["unlinked"] == 0):
            raise NotFound(f"threads {thread_id!r} and {other_id!r} are not linked", field="threadId")

    async def append(
        self, principal: Principal, thread_id: str, messages: Sequence[NewMessage]
    ) -> list[dict[str, Any]]:
        """Append messages in order, in one transaction; ids already in the thread are skipped."""
        require_unscoped(principal, "conversation memory (threads, messages, insights)")
        if not messages:
            raise InvalidInput("send at least one message", field="messages")
        if len(messages) > MAX_MESSAGES_PER_APPEND:
            raise InvalidInput(f"at most {MAX_MESSAGES_PER_APPEND} messages per append", field="messages")
        ids = [
            check_id(m.id, f"messages.{i}.id") if m.id else uuid.uuid4().hex for i, m in enumerate(messages)
        ]

        async def work(gated: Gated) -> list[Row]:
            return await append_messages(gated, principal, thread_id, ids, messages)

        stored = await self._gate.write(principal.user_id, work)
        if self._gists is not None:
            self._gists.mark(principal.user_id, thread_id)
        return [data_view(plain(r["message"])) for r in stored]

    async def list_messages(
        self,
        principal: Principal,
        thread_id: str,
        *,
        limit: int = 100,
        cursor: str | None = None,
    ) -> tuple[list[dict[str, Any]], str | None]:
        """A page of a thread's messages, oldest first."""
        require_unscoped(principal, "conversation memory (threads, messages, insights)")
        await self.get_thread(principal, thread_id)
        after_seq = decode_seq_cursor(cursor) if cursor else 0
        rows = await self._db.read_listed(
            "queries/conversations/messages_list",
            userId=principal.user_id,
            threadId=thread_id,
            afterSeq=after_seq,
            limit=limit + 1,
        )
        items = [data_view(plain(r["message"])) for r in rows]
        more = len(items) > limit
        items = items[:limit]
        return items, str(items[-1]["seq"]) if more else None


async def append_messages(
    gated: Gated, principal: Principal, thread_id: str, ids: Sequence[str], messages: Sequence[NewMessage]
) -> list[Row]:
    """Append ``messages`` (their ids ``ids``) to a thread in the caller's gated transaction; ids
    already in the thread, or earlier in ``messages``, are skipped when the thread, role and
    content are the same, else a :class:`Conflict`. Under the user's lock: the thread's last
    message is the one committed last."""
    require_unscoped(principal, "conversation memory (threads, messages, insights)")
    state = await gated.run("queries/conversations/messages_state", threadId=thread_id, ids=ids)
    if not state:
        raise NotFound(f"no thread {thread_id!r}", field="id")
    existing: dict[str, Row] = {e["id"]: e for e in state[0]["existing"]}
    previous, seq = state[0]["lastId"], int(state[0]["lastSeq"])
    rows = []
    for i, (mid, message) in enumerate(zip(ids, messages, strict=True)):
        if mid in existing:
            known = existing[mid]
            same = (known["threadId"], known["role"], known["content"], known.get("data")) == (
                thread_id,
                message.role.value,
                message.content,
                message.data,
            )
            if not same:
                where = "appears earlier in this append" if known.get("here") else "already exists"
                raise Conflict(
                    f"message {mid!r} {where} with other thread, role, content or data",
                    field=f"messages.{i}.id",
                )
            continue
        existing[mid] = {
            "threadId": thread_id, "role": message.role.value, "content": message.content,
            "data": message.data, "here": True,
        }  # fmt: skip
        seq += 1
        rows.append(
            {
                "id": mid,
                "role": message.role.value,
                "content": message.content,
                "seq": seq,
                "previousId": previous,
                "createdAt": message.created_at.isoformat() if message.created_at else None,
                "data": message.data,
            }
        )
        previous = mid
    if rows:
        await gated.run("queries/conversations/messages_append", threadId=thread_id, rows=rows)
        await journal.record_many(gated, principal, [
            journal.Change("message.append", "Message", r["id"], None, {
                "threadId": thread_id, "role": r["role"], "content": r["content"], "seq": r["seq"],
            } | ({"data": r["data"]} if r["data"] is not None else {}))
            for r in rows
        ])  # fmt: skip
    return await gated.run_listed("queries/conversations/messages_by_ids", threadId=thread_id, ids=ids)
