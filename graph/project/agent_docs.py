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
  The work is bounded whatever the user stored: the newest ``MAX_DECISIONS`` decisions are
  read (the others are only counted), each cut to ``MAX_DECISION_CHARS`` with a marker,
  counting stops once the budget is full, and the counting runs off the event loop.
  A decision an agent wrote is marked with its author (``(recorded by agent X)``).

An agent key writes only its own agent's docs: another id is a 403 naming it.
"""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any

from ctxnet.wire.project import MAX_LINES
from graph.continuity.tokens import TokenCounter
from graph.core import journal
from graph.core.db import Database
from graph.core.embeddings import Embedder
from graph.core.errors import Forbidden, InvalidInput
from graph.core.gate import Gated, WriteGate
from graph.core.principals import Principal
from graph.core.scopes import require_unscoped
from graph.core.values import check_id, iso_millis
from graph.core.vectors import cosine_from_score
from graph.knowledge.corrections import is_agent
from graph.knowledge.valid_time import millis_now
from graph.project.context import authorship, recorded_by
from graph.project.models import AgentDocs

#: The instructions of an agent whose docs give none (the seed's).
DEFAULT_BASE = "You are a development assistant."
#: The seed's template around the decisions.
DECISIONS_HEADER = "Respect these architectural decisions:"
CLOSING = "When in doubt about approaches, query the project documentation."
#: Most active decisions one read of instructions considers (the newest); older ones are
#: counted, not read: a 100,000-token budget holds about 500 decision lines of 200 tokens.
MAX_DECISIONS = 500
#: Longest decision text instructions carry; a longer one is cut and marked.
MAX_DECISION_CHARS = 2_000
#: What ends a cut decision (``{id}``: where the whole of it is).
CUT_MARKER = " [...] (cut; the whole decision: GET /v1/decisions/{id})"
#: Fewest tokens a decision line takes ("\n- t: d"): below this room, the budget is full.
MIN_LINE_TOKENS = 5


class AgentDocService:
    """Agents' documentation, self-docs and decision-aware instructions."""

    def __init__(self, db: Database, embedder: Embedder, counter: TokenCounter) -> None:
        self._db = db
        self._gate = WriteGate(db)
        self._embedder = embedder
        self._counter = counter

    async def put(self, principal: Principal, agent_id: str, docs: AgentDocs) -> dict[str, Any]:
        """Replace an agent's docs; answers them as stored. An agent key writes only its own
        (:class:`Forbidden` naming the other id)."""
        require_unscoped(principal, "agents' docs and instructions (the whole team's)")
        agent_id = check_id(agent_id, "id")
        if is_agent(principal) and principal.agent_id != agent_id:
            raise Forbidden(
                f"this key is agent {principal.agent_id!r}'s: it writes only its own docs, not agent "
                f"{agent_id!r}'s; a person's key writes any agent's",
                field="id",
            )
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
        require_unscoped(principal, "agents' docs and instructions (the whole team's)")
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
        require_unscoped(principal, "agents' docs and instructions (the whole team's)")
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
        require_unscoped(principal, "agents' docs and instructions (the whole team's)")
        agent_id = check_id(agent_id, "id")
        docs = await self.get(principal, agent_id)
        [found] = await self._db.read(
            "queries/project/instructions_decisions", userId=principal.user_id, agentId=agent_id,
            limit=MAX_DECISIONS, maxChars=MAX_DECISION_CHARS, validAt=millis_now(),
        )  # fmt: skip
        base = docs["baseInstructions"] or DEFAULT_BASE
        # Tokenising is CPU work (up to MAX_DECISIONS lines): a thread, not the event loop.
        fitted = await asyncio.to_thread(_fit, self._counter, base, found["decisions"], token_budget)
        text = fitted["text"]
        return {
            "agentId": agent_id,
            "text": text,
            "decisions": fitted["used"],
            "dropped": fitted["dropped"],
            "cut": fitted["cut"],
            "notRead": found["total"] - len(found["decisions"]),
            "tokens": fitted["tokens"],
            "tokenBudget": token_budget,
            "tokenizer": self._counter.name,
            "revision": hashlib.sha256(text.encode()).hexdigest()[:16],
        }


def _line(d: dict[str, Any]) -> str:
    """A decision as instructions list it: cut ones marked, agent-written ones attributed."""
    body = d["decision"]
    if d["cut"]:  # a cut between the halves of a surrogate pair would leave half of one
        body = body[:-1] if body and "\ud800" <= body[-1] <= "\udbff" else body
        body += CUT_MARKER.format(id=d["id"])
    return f"- {d['title']}: {body}{authorship(recorded_by(d))}"


def _fit(counter: TokenCounter, base: str, decisions: list[dict[str, Any]], budget: int) -> dict[str, Any]:
    """The instructions text within ``budget``: the newest decisions that fit, in order, and
    the ids of those that did not; counting stops once no line can fit any more."""
    text = f"{base}\n\n{CLOSING}"
    tokens = counter.count(text)
    if tokens > budget:
        raise InvalidInput(
            f"the agent's base instructions alone are {tokens} tokens; the budget is {budget}",
            field="tokenBudget",
        )
    # Counted line by line (a line's tokens do not merge across its newline), then the
    # whole text once: what did not fit goes, newest decisions first in.
    room = budget - counter.count(_render(base, ["-"])) + counter.count("\n-")
    lines: list[str] = []
    used: list[dict[str, Any]] = []
    dropped: list[str] = []
    for i, d in enumerate(decisions):
        if room < MIN_LINE_TOKENS:  # full: the rest is dropped without counting
            dropped.extend(rest["id"] for rest in decisions[i:])
            break
        line = _line(d)
        size = counter.count(f"\n{line}")
        if size > room:
            dropped.append(d["id"])
            continue
        room -= size
        lines.append(line)
        used.append({"id": d["id"], "title": d["title"], "date": d["date"]})
    text = _render(base, lines)
    tokens = counter.count(text)
    while tokens > budget and lines:  # a merge the line counts missed: drop the oldest
        lines.pop()
        dropped.append(used.pop()["id"])
        text = _render(base, lines)
        tokens = counter.count(text)
    kept = {u["id"] for u in used}
    cut = [d["id"] for d in decisions if d["cut"] and d["id"] in kept]
    return {"text": text, "tokens": tokens, "used": used, "dropped": dropped, "cut": cut}


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
