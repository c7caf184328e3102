"""A thread's gist: one vector for what a conversation is about now, its topic and its latest
messages, by which a new architectural decision finds the conversations it may affect
(``graph.project.context``).

A thread gets its topic's vector when it is created. After messages are appended, the
gist is refreshed **off the write path**: the append only marks the thread, and a
background task of the process, every ``delay`` seconds, embeds the gists of the threads
marked meanwhile and stores them under each user's write gate. So an agent appending
messages never waits for the embedder, and a burst of appends to one thread costs one
embedding. Each gist is embedded alone: its vector depends on its text only, never on which
other threads were marked in the same round. A gist is stored only if the thread holds the
messages it was read from; a thread that got one since (an append, a decision's notice) is
marked again.
When a second model compares decisions with threads (``CTXNET_DECISION_NOTIFY_SECOND_MODEL``,
``graph.project.notify``), the same text is embedded by it too and stored beside the gist as
``notifyEmbedding`` (with ``notifyModel``); without one, a refresh removes the thread's.
``embeddedSeq`` says up to which message a thread's gist is; a refresh lost to a shutdown
is made at the thread's next append, and ``ctxnet db reembed`` makes every missing one.

The gist's text is the topic and the latest :data:`RECENT` messages that are not system
messages (the notices a decision leaves are not what a conversation is about), newest
first (the embedder reads the first 256 tokens), each cut to :data:`CUT` characters.
``cypher/queries/conversations/thread_gist_text.cypher`` and
``cypher/queries/core/reembed_thread_page.cypher`` build it the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict

from graph.core.db import Database
from graph.core.embeddings import Embedder, embed_each
from graph.core.gate import Gated, WriteGate

log = logging.getLogger(__name__)

#: Latest messages a gist holds, and how much of each.
RECENT = 3
CUT = 1_000
#: Most threads embedded in one refresh (the rest wait for the next).
BATCH = 64


class ThreadGists:
    """Refreshes the gists of threads that got messages, in the background."""

    def __init__(
        self, db: Database, embedder: Embedder, delay_seconds: float = 2.0, second: Embedder | None = None
    ) -> None:
        self._db = db
        self._gate = WriteGate(db)
        self._embedder = embedder
        self._second = second
        self._delay = delay_seconds
        self._marked: dict[str, set[str]] = defaultdict(set)
        self._task: asyncio.Task[None] | None = None

    def mark(self, user_id: str, thread_id: str) -> None:
        """The thread got messages: refresh its gist soon."""
        self._marked[user_id].add(thread_id)

    def start(self) -> None:
        """Run the refresh loop in this process's event loop."""
        if self._task is None:
            self._task = asyncio.create_task(self._loop(), name="thread-gists")

    async def stop(self) -> None:
        """Stop the loop; threads still marked are refreshed at their next append."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(self._delay)
            try:
                await self.refresh()
            except Exception:  # noqa: BLE001 - a failed refresh must not end the loop
                log.exception("thread gists not refreshed; they are marked again for the next round")

    async def refresh(self) -> int:
        """Embed and store the gists of the threads marked so far; how many were stored."""
        taken, left = [], BATCH
        for user_id in list(self._marked):
            ids = sorted(self._marked.pop(user_id))
            taken.append((user_id, ids[:left]))
            if ids[left:]:
                self._marked[user_id].update(ids[left:])
            left -= len(taken[-1][1])
            if left <= 0:
                break
        stored = 0
        try:
            for user_id, ids in taken:
                rows = await self._db.read("queries/conversations/thread_gist_text", userId=user_id, ids=ids)
                if not rows:
                    continue
                # Each alone: embedded beside the other pending gists, a gist would move with
                # whatever else was marked in the same round, and a decision's notices with it.
                texts = [r["text"] for r in rows]
                vectors = await embed_each(self._embedder, texts)
                seconds = await embed_each(self._second, texts) if self._second else [None] * len(rows)
                gists = [
                    {"id": r["id"], "text": r["text"], "seq": r["seq"], "embedding": v, "notifyEmbedding": w}
                    for r, v, w in zip(rows, vectors, seconds, strict=True)
                ]

                async def work(gated: Gated, gists: list[dict[str, object]] = gists) -> list[str]:
                    [row] = await gated.run(
                        "queries/conversations/thread_gist_set", rows=gists, model=self._embedder.model_id,
                        notifyModel=self._second.model_id if self._second else None,
                    )  # fmt: skip
                    return list(row["stored"])

                done = await self._gate.write(user_id, work)
                stored += len(done)
                # A thread that got a message since it was read: its gist is made again.
                self._marked[user_id].update(set(ids) & {str(r["id"]) for r in rows} - set(done))
        except Exception:
            for user_id, ids in taken:  # tried again next round
                self._marked[user_id].update(ids)
            raise
        return stored
