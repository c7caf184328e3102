"""What agents are told: their documentation, self-docs on a question, and instructions that
carry the project's active decisions.

* **Docs** (``PUT /v1/agents/{id}/docs``): an agent's capabilities, its own constraints and
  its base instructions. Each line is an ``AgentDoc`` node with its embedding, under the
  user's ``Agent`` node; a PUT replaces them all (journaled as ``agent.docs``).
* **Self-docs** (the seed's ``query-my-docs``): for an agent and a question, its
  capabilities, the active decisions that affect it and the constraints (the project's that
  affect it, and its own), each ranked by similarity to the question.
* **Instructions**: the base instructions plus every active decision that affects the agent,
  in the seed's template, rendered from the graph on every read, so a decision recorded or
  superseded a moment ago is in (or out of) the very next read. Within a token budget,
  counted offline; the newest decisions first, and what did not fit is named. ``revision``
  is a hash of the text: an agent that caches its instructions re-reads when it changes.
"""

from __future__ import annotations

import hashlib
from typing import Any

from graph.continuity.tokens import TokenCounter
from graph.core import journal
from graph.core.db import Database
from graph.core.embeddings import Embedder
from graph.core.errors import InvalidInput
from graph.core.gate import Gated, WriteGate
from graph.core.principals import Principal
from graph.core.values import check_id, iso_millis
from graph.core.vectors import cosine_from_score
from graph.project.models import AgentDocs

#: The instructions of an agent whose docs give none (the seed's).
DEFAULT_BASE = "You are a development assistant."
#: The seed's template around the decisions.
DECISIONS_HEADER = "Respect these architectural decisions:"
CLOSING = "When in doubt about approaches, query the project documentation."
#: Most lines (capabilities plus constraints) one agent's docs may hold.
MAX_LINES = 200


class AgentDocService:
    """Agents' documentation, self-docs and decision-aware instructions."""

    def __init__(self, db: Database, embedder: Embedder, counter: TokenCounter) -> None:
        self._db = db
        self._gate = WriteGate(db)
        self._embedder = embedder
        self._counter = counter

    async def put(self, principal: Principal, agent_id: str, docs: AgentDocs) -> dict[str, Any]:
        """Replace an agent's docs; answers them as stored."""
        agent_id = check_id(agent_id, "id")
        lines = [("capability", text) for text in docs.capabilities] + [
            ("constraint", text) for text in docs.constraints
        ]
        if len(lines) > MAX_LINES:
            raise InvalidInput(
                f"at most {MAX_LINES} capabilities and constraints together", field="capabilities"
            )
        vectors = await self._embedder.embed([text for _, text in lines]) if lines else []
        rows = [
            {"kind": kind, "position": i, "text": text, "embedding": vector}
            for i, ((kind, text), vector) in enumerate(zip(lines, vectors, strict=True))
        ]
        after = {
            "capabilities": list(docs.capabilities),
            "constraints": list(docs.constraints),
            "baseInstructions": docs.base_instructions,
        }

        async def work(gated: Gated) -> None:
            before = await self._docs(gated, agent_id)
            if before is not None and {k: before[k] for k in after} == after:
                return  # the same docs again change nothing
            await gated.run(
                "queries/project/agent_docs_write", agentId=agent_id, baseInstructions=docs.base_instructions,
                lines=rows, embeddingModel=self._embedder.model_id,
            )  # fmt: skip
            await journal.record(
                gated, principal, op="agent.docs", target_type="Agent", target_id=agent_id,
                before=None if before is None else {k: before[k] for k in after}, after=after,
            )  # fmt: skip

        await self._gate.write(principal.user_id, work)
        return await self.get(principal, agent_id)

    async def get(self, principal: Principal, agent_id: str) -> dict[str, Any]:
        """An agent's docs (empty lists and no base instructions when it has none)."""
        agent_id = check_id(agent_id, "id")
        rows = await self._db.read(
            "queries/project/agent_docs_get", userId=principal.user_id, agentId=agent_id
        )
        docs = _docs_view(rows[0]) if rows else None
        return {"agentId": agent_id} | (
            docs or {"capabilities": [], "constraints": [], "baseInstructions": None, "updatedAt": None}
        )

    @staticmethod
    async def _docs(gated: Gated, agent_id: str) -> dict[str, Any] | None:
        rows = await gated.run("queries/project/agent_docs_get", agentId=agent_id)
        return _docs_view(rows[0]) if rows else None

    async def self_docs(
        self, principal: Principal, agent_id: str, query: str | None, *, top_k: int = 5
    ) -> dict[str, Any]:
        """The agent's capabilities, relevant active decisions and constraints for ``query``,
        each list ranked by similarity (in their own order without a query)."""
        agent_id = check_id(agent_id, "id")
        vector = (await self._embedder.embed([query]))[0] if query else None
        [row] = await self._db.read(
            "queries/project/self_docs",
            userId=principal.user_id,
            agentId=agent_id,
            vector=vector,
            limit=top_k,
        )

        def scored(item: dict[str, Any]) -> dict[str, Any]:
            item = {k: v for k, v in item.items() if v is not None}
            if "score" in item:
                item["score"] = round(cosine_from_score(item["score"]), 4)
            return item

        return {
            "agentId": agent_id,
            "query": query,
            "capabilities": [scored(c) for c in row["capabilities"]],
            "relevantDecisions": [scored(d) for d in row["decisions"]],
            "constraints": [scored(c) for c in row["constraints"]],
        }

    async def instructions(self, principal: Principal, agent_id: str, token_budget: int) -> dict[str, Any]:
        """Base instructions plus the active decisions that affect the agent, as one text
        within ``token_budget`` tokens (the newest decisions first)."""
        agent_id = check_id(agent_id, "id")
        user = principal.user_id
        docs = await self.get(principal, agent_id)
        decisions = await self._db.read(
            "queries/project/instructions_decisions", userId=user, agentId=agent_id
        )
        base = docs["baseInstructions"] or DEFAULT_BASE
        used: list[dict[str, Any]] = []
        dropped: list[str] = []
        text = f"{base}\n\n{CLOSING}"
        tokens = self._counter.count(text)
        if tokens > token_budget:
            raise InvalidInput(
                f"the agent's base instructions alone are {tokens} tokens; the budget is {token_budget}",
                field="tokenBudget",
            )
        # Counted line by line (a line's tokens do not merge across its newline), then the
        # whole text once: what did not fit goes, newest decisions first in.
        room = token_budget - self._counter.count(_render(base, ["-"])) + self._counter.count("\n-")
        lines: list[str] = []
        for d in decisions:
            line = f"- {d['title']}: {d['decision']}"
            size = self._counter.count(f"\n{line}")
            if size > room:
                dropped.append(d["id"])
                continue
            room -= size
            lines.append(line)
            used.append({"id": d["id"], "title": d["title"], "date": d["date"]})
        text = _render(base, lines)
        tokens = self._counter.count(text)
        while tokens > token_budget and lines:  # a merge the line counts missed: drop the oldest
            lines.pop()
            dropped.append(used.pop()["id"])
            text = _render(base, lines)
            tokens = self._counter.count(text)
        return {
            "agentId": agent_id,
            "text": text,
            "decisions": used,
            "dropped": dropped,
            "tokens": tokens,
            "tokenBudget": token_budget,
            "tokenizer": self._counter.name,
            "revision": hashlib.sha256(text.encode()).hexdigest()[:16],
        }


def _render(base: str, lines: list[str]) -> str:
    """The seed's template: base instructions, the decisions to respect, the closing line."""
    if not lines:
        return f"{base}\n\n{CLOSING}"
    return "\n".join([base, "", DECISIONS_HEADER, *lines, "", CLOSING])


def _docs_view(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "capabilities": [c["text"] for c in sorted(row["capabilities"], key=lambda c: c["position"])],
        "constraints": [c["text"] for c in sorted(row["constraints"], key=lambda c: c["position"])],
        "baseInstructions": row["baseInstructions"],
        "updatedAt": iso_millis(row["updatedAt"]),
    }
