"""Project context: architecture decisions, patterns and constraints, and how a new decision
reaches the agents and conversations it affects.

An entry is a knowledge note with the ``ProjectContext`` label (``graph.project.models``),
written through the note service in one gated transaction with its fields, so it is
embedded, searchable, journaled (``note.create`` and ``project.record``) and an end of the
typed edges like any note. Superseding a decision is the knowledge network's own
``supersedes`` edge: it flips the old decision's status, yields to a person's correction,
and refuses a loop.

**Recording a decision** also:

* **refreshes the instructions of the agents it affects**: the agents it names, or, naming
  none, every agent of the project (those that ran a session or have docs, and those the
  agents file names). Instructions are rendered from the graph on every read
  (``graph.project.agent_docs``), so they are current the moment the write commits; the
  answer lists whose instructions changed.
* **tells the conversations it may affect**, in the same transaction: a system message
  ``[CONTEXT UPDATE] New architectural decision may affect this conversation: <title>`` in
  each thread active within ``decision_notify_days`` that a session of an agent it names is
  about, or whose gist (its topic and latest messages, ``graph.conversations.gists``) or
  insights stand out among the user's threads for this decision (by bge-small's cosines or
  the second model's), or are at least ``notify_floor`` similar to it
  (:mod:`graph.project.notify`, read by :mod:`graph.project.affected`); at most
  ``decision_notify_max_threads``. The message's id is derived from the decision and the
  thread, and a decision already recorded notifies nobody again.

**Who may write** (a person's word holds here too):

* an entry an **agent** records (a decision, pattern or constraint) is not stored: it waits
  as a ``project.record`` proposal (202) until a person approves it (then it is recorded as
  theirs, announced then, and marks the agent that proposed it), unless the deployment opts
  out (``CTXNET_AGENT_CONTEXT_NEEDS_APPROVAL=false``): then it is recorded at once, marked
  with its author;
* an agent's supersede of a decision a person recorded (or approved) waits as an
  ``edge.connect`` proposal (the knowledge network holds a status a person wrote);
* what agent-written text reaches other agents is marked with its author: the entry's
  ``recordedBy``, ``(recorded by agent X)`` in instructions and notices (``(proposed by
  agent X, approved by a person)`` once approved), and the notice of a decision an agent
  recorded unapproved is an ``assistant`` message, not a ``system`` one: only a person's
  word speaks with the system's voice.
"""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from graph.continuity.agents import AgentRegistry
from graph.conversations.gists import ThreadGists
from graph.conversations.models import NewMessage
from graph.conversations.models import Role as MessageRole
from graph.conversations.threads import append_messages
from graph.core import journal
from graph.core.db import Database
from graph.core.embeddings import Embedder, embed_each
from graph.core.errors import Conflict, NotFound
from graph.core.gate import Gated, WriteGate
from graph.core.principals import Principal, Role
from graph.core.scopes import require_unscoped
from graph.core.values import check_id, decode_cursor, encode_cursor, plain
from graph.knowledge import corrections
from graph.knowledge.edges import EdgeService
from graph.knowledge.models import CreateResult, EdgeType, KnowledgeSource, NewEdge, NewNote, Proposed
from graph.knowledge.notes import NoteService
from graph.project import notify as notifying
from graph.project.affected import DecisionVectors, NotifyConfig, affected_threads
from graph.project.models import NewEntry, ProjectKind, entry_label, note_source_of, note_type_of

#: The message a thread gets when a decision that may affect it is recorded.
NOTICE = "[CONTEXT UPDATE] New architectural decision may affect this conversation: {title}"
#: The proposal operations :meth:`ProjectContextService.approve` applies.
PROPOSAL_OPS = ("project.record",)
#: Runs in the transaction that applies an approved proposal (marks it approved).
Then = Callable[[Gated, Any], Awaitable[None]]


def authorship(recorded_by: dict[str, Any] | None) -> str:
    """How instructions and notices mark agent-written text: ``" (recorded by agent X)"``,
    ``" (proposed by agent X, approved by a person)"``, nothing for a person's own."""
    if not recorded_by:
        return ""
    agent = recorded_by.get("agentId")
    who = f"agent {agent}" if agent else "an agent"
    if recorded_by.get("role") == Role.HUMAN.value:  # approved: the person recorded it
        proposer = recorded_by.get("proposedByAgent")
        if recorded_by.get("proposedByRole") in (None, Role.HUMAN.value):
            return ""
        return f" (proposed by {'agent ' + proposer if proposer else 'an agent'}, approved by a person)"
    return f" (recorded by {who})"


@dataclass
class Recorded:
    """What recording an entry did: the entry (``None`` when it became a proposal), whether
    it is new, and, for a new decision, whose instructions changed and which threads were told."""

    entry: dict[str, Any] | None
    created: bool
    refreshed_agents: list[str] = field(default_factory=list)
    notified_threads: list[dict[str, Any]] = field(default_factory=list)
    proposal: dict[str, Any] | None = None


class ProjectContextService:
    """Record, list and supersede a user's decisions, patterns and constraints."""

    def __init__(
        self,
        db: Database,
        embedder: Embedder,
        notes: NoteService,
        edges: EdgeService,
        agents: AgentRegistry,
        notify: NotifyConfig | None = None,
        second: Embedder | None = None,
        gists: ThreadGists | None = None,
    ) -> None:
        """``second``: the second model that compares a decision with the user's threads
        (``notify.second_prior_mean`` is its prior), or ``None``; ``gists``: the threads' gists,
        refreshed after a notice is appended as after any message."""
        self._db = db
        self._embedder = embedder
        self._second = second if notify is not None and notify.second_prior_mean is not None else None
        self._notes = notes
        self._edges = edges
        self._agents = agents
        self._notify = notify or NotifyConfig()
        self._gists = gists

    # --- record -------------------------------------------------------------------------------
    async def record(
        self,
        principal: Principal,
        entry: NewEntry,
        *,
        needs_approval: bool = True,
        approving: dict[str, Any] | None = None,
        then: Then | None = None,
    ) -> Recorded:
        """Store an entry (the same id and fields again: nothing changes, nobody is told
        again; the same id with other fields: :class:`Conflict`).

        An agent's new entry waits as a proposal while ``needs_approval`` (the setting).
        ``approving`` is the proposal a person approved, when this record is one, and
        ``then`` runs in the same transaction (it marks the proposal approved)."""
        require_unscoped(principal, "project context (decisions, patterns, constraints)")
        entry_id = check_id(entry.id) if entry.id else uuid.uuid4().hex
        agents = [check_id(a, f"agents.{i}") for i, a in enumerate(entry.agents)]
        date = entry.date or datetime.now(UTC).date().isoformat()
        if needs_approval and approving is None and corrections.is_agent(principal):
            proposal = await self._propose(principal, entry, entry_id, date, agents)
            if proposal is not None:
                return Recorded(entry=None, created=False, proposal=proposal)
        proposer = approving["proposedBy"] if approving else None
        recorded_by = {
            "role": principal.role.value, "agentId": principal.agent_id,
            "proposedByRole": proposer["role"] if proposer else None,
            "proposedByAgent": proposer.get("agentId") if proposer else None,
        }  # fmt: skip
        texts = [f"{entry.title}\n{entry.body}"]  # the note's own vector (search)
        if entry.kind is ProjectKind.DECISION:  # what it decides, why, its parts (the threads it affects)
            texts = notifying.decision_texts(entry.title, entry.body, entry.consequences, entry.context or "")
        vectors = await embed_each(self._embedder, texts)  # before the gate
        threads: list[dict[str, Any]] = []
        known: list[str] = []
        if entry.kind is ProjectKind.DECISION:
            known = await self._known_agents(principal)
            if self._notify.max_threads:
                terms = await asyncio.to_thread(  # up to 60,000 characters read for words
                    notifying.decision_words, entry.title, entry.body, entry.consequences, entry.tags
                )
                sides = await DecisionVectors.of(vectors, texts, self._second)
                threads = await affected_threads(
                    self._db, principal.user_id, sides, terms, agents, self._notify
                )
        fields = {
            "kind": entry.kind.value,
            "context": entry.context,
            "consequences": list(entry.consequences),
            "date": date,
            "agents": agents,
        }
        done = Recorded(entry=None, created=False)

        async def announce(gated: Gated) -> None:
            await gated.run(
                "queries/project/context_mark", id=entry_id, label=entry_label(entry.kind),
                kind=entry.kind.value,
                context=entry.context, consequences=fields["consequences"], date=date, agents=agents,
                proposedByRole=recorded_by["proposedByRole"], proposedByAgent=recorded_by["proposedByAgent"],
            )  # fmt: skip
            await journal.record_many(gated, principal, [journal.Change(
                "project.record", "Knowledge", entry_id, None, fields,
                proposal_id=approving["id"] if approving else None,
            )])  # fmt: skip
            if entry.kind is not ProjectKind.DECISION:
                return
            notice = NOTICE.format(title=entry.title) + authorship(recorded_by)
            # Only a person's word (recorded or approved) speaks with the system's voice.
            voice = MessageRole.SYSTEM if recorded_by["role"] == Role.HUMAN.value else MessageRole.ASSISTANT
            told = []  # built afresh: the driver may run this transaction function again
            for thread in threads:
                message_id = notice_id(entry_id, thread["threadId"])
                try:
                    await append_messages(
                        gated, principal, thread["threadId"], [message_id], [NewMessage(voice, notice)]
                    )
                except NotFound:
                    continue  # deleted since it was found: nobody left to tell
                told.append(thread | {"messageId": message_id})
            if told:
                await gated.run(
                    "queries/project/notices_link",
                    decisionId=entry_id,
                    messageIds=[t["messageId"] for t in told],
                )
            done.refreshed_agents, done.notified_threads = self._affected_agents(agents, known), told

        async def marked(gated: Gated, results: list[CreateResult]) -> None:
            [result] = results
            if result.proposal is not None:
                return
            if not result.created:
                await self._same_entry(gated, entry_id, fields, dated=entry.date is not None)
            else:
                await announce(gated)
            if then is not None:
                await then(gated, None)

        [result] = await self._notes.create(
            principal,
            [
                NewNote(
                    title=entry.title, content=entry.body, type=note_type_of(entry.kind),
                    source=note_source_of(entry.kind), confidence=1.0, tags=entry.tags, id=entry_id,
                    embedding=vectors[0], dedupe=False,
                )
            ],
            batch=False,
            then=marked,
            approving=approving["id"] if approving else None,
        )  # fmt: skip
        if result.proposal is not None:
            return Recorded(entry=None, created=False, proposal=result.proposal)
        if self._gists is not None:  # a notice is a message: the thread's gist is made again
            for thread in done.notified_threads:
                self._gists.mark(principal.user_id, thread["threadId"])
        done.entry = await self.get(principal, entry.kind, entry_id)
        done.created = result.created
        return done

    async def _propose(
        self, principal: Principal, entry: NewEntry, entry_id: str, date: str, agents: list[str]
    ) -> dict[str, Any] | None:
        """An agent's new entry as a proposal for a person (``None``: the id is taken, so the
        usual record answers: the same entry again, or a 409)."""
        payload = {
            "id": entry_id, "kind": entry.kind.value, "title": entry.title, "body": entry.body,
            "context": entry.context, "consequences": list(entry.consequences), "date": date,
            "agents": agents, "tags": list(entry.tags),
        }  # fmt: skip

        async def work(gated: Gated) -> dict[str, Any] | None:
            if entry.id and await gated.run("queries/project/context_kind", ids=[entry_id]):
                return None
            return await corrections.propose(
                gated, principal, op="project.record", target_id=entry_id, payload=payload,
                fields=[entry.kind.value], corrections=[],
            )  # fmt: skip

        return await WriteGate(self._db).write(principal.user_id, work)

    async def approve(self, principal: Principal, proposal: dict[str, Any], then: Then) -> None:
        """Record a proposed entry as ``principal`` (a person who approved it), with ``then``
        in the same transaction (:mod:`graph.knowledge.proposals` dispatches here)."""
        require_unscoped(principal, "project context (decisions, patterns, constraints)")
        p = proposal["payload"]
        entry = NewEntry(
            kind=ProjectKind(p["kind"]), title=p["title"], body=p["body"], id=p["id"], context=p["context"],
            consequences=tuple(p["consequences"]), date=p["date"], agents=tuple(p["agents"]),
            tags=tuple(p["tags"]),
        )  # fmt: skip
        await self.record(principal, entry, approving=proposal, then=then)

    @staticmethod
    async def _same_entry(gated: Gated, entry_id: str, fields: dict[str, Any], *, dated: bool) -> None:
        """The note ``entry_id`` exists (same title, body and type): it must be this entry
        (its date too, when the request gave one: else it was the day of the first record)."""
        [row] = await gated.run("queries/project/context_kind", ids=[entry_id])
        stored = {k: row[k] for k in ("kind", "context", "consequences", "date", "agents")}
        if not dated:
            fields = fields | {"date": stored["date"]}
        if stored["kind"] is None:
            raise Conflict(f"id {entry_id!r} is taken by a note that is not project context", field="id")
        if stored != fields:
            raise Conflict(
                f"{stored['kind']} {entry_id!r} exists with other fields; supersede it with a new one",
                field="id",
            )

    async def _known_agents(self, principal: Principal) -> list[str]:
        """Every agent of the project: those that ran a session or have docs, and those the
        agents file names."""
        rows = await self._db.read("queries/project/known_agents", userId=principal.user_id)
        return sorted({r["id"] for r in rows} | {a.id for a in self._agents.configured()})

    @staticmethod
    def _affected_agents(named: list[str], known: list[str]) -> list[str]:
        """The agents a decision affects: those it names, else every agent of the project."""
        return sorted(set(named)) if named else known

    # --- read ---------------------------------------------------------------------------------
    async def list_entries(
        self,
        principal: Principal,
        kind: ProjectKind,
        *,
        status: str | None = None,
        agent_id: str | None = None,
        tag: str | None = None,
        limit: int = 50,
        cursor: str | None = None,
    ) -> tuple[list[dict[str, Any]], str | None]:
        """Entries of one kind, the newest first by date, then by when they were recorded."""
        require_unscoped(principal, "project context (decisions, patterns, constraints)")
        after = None
        if cursor:  # (when it was recorded, "<date>|<id>"): the entry's sort key
            at, last = decode_cursor(cursor)
            day, _, last_id = last.partition("|")
            millis = round(datetime.fromisoformat(at).timestamp() * 1000)
            after = f"{day}|{millis:013d}|{last_id}"
        rows = await self._db.read_listed(
            "queries/project/context_list", userId=principal.user_id, kind=kind.value, ids=None,
            status=status, agentId=check_id(agent_id, "agentId") if agent_id else None, tag=tag,
            after=after, limit=limit + 1,
        )  # fmt: skip
        items = [entry_view(r["entry"]) for r in rows[:limit]]
        if len(rows) <= limit:
            return items, None
        end = items[-1]
        return items, encode_cursor(end["createdAt"], f"{end['date']}|{end['id']}")

    async def get(self, principal: Principal, kind: ProjectKind, entry_id: str) -> dict[str, Any]:
        """One entry of ``kind`` (:class:`NotFound` for another kind's id or a plain note's)."""
        require_unscoped(principal, "project context (decisions, patterns, constraints)")
        rows = await self._db.read_listed(
            "queries/project/context_list", userId=principal.user_id, kind=kind.value,
            ids=[check_id(entry_id)], status=None, agentId=None, tag=None, after=None, limit=1,
        )  # fmt: skip
        if not rows or rows[0]["entry"]["kind"] != kind.value:
            raise NotFound(f"no {kind.value} {entry_id!r}", field="id")
        return entry_view(rows[0]["entry"])

    # --- supersede ----------------------------------------------------------------------------
    async def supersede(self, principal: Principal, decision_id: str, by_id: str) -> Recorded:
        """Decision ``by_id`` supersedes ``decision_id``: the knowledge network's supersedes
        edge, which marks the old one superseded (its agents' instructions drop it at once).
        Again: nothing changes. An agent's supersede of a decision a person recorded (or
        approved), or of a status a person corrected, waits as a proposal; one that would
        close a loop is a :class:`Conflict`."""
        require_unscoped(principal, "project context (decisions, patterns, constraints)")
        decision_id, by_id = check_id(decision_id), check_id(by_id, "byId")
        if decision_id == by_id:
            raise Conflict("a decision cannot supersede itself", field="byId")
        rows = {
            r["id"]: r
            for r in await self._db.read(
                "queries/project/context_kind", userId=principal.user_id, ids=[decision_id, by_id]
            )
        }
        for name, node_id in (("id", decision_id), ("byId", by_id)):
            if rows.get(node_id, {}).get("kind") != ProjectKind.DECISION.value:
                raise NotFound(f"no decision {node_id!r}", field=name)
        # The knowledge network holds an agent's edge that would flip a status a person
        # wrote or corrected: a person's decision is superseded by an agent only by proposal.
        edge = NewEdge(by_id, EdgeType.SUPERSEDES, decision_id, source=KnowledgeSource.DECISION)
        made = await self._edges.connect(principal, [edge], batch=False)
        if isinstance(made, Proposed):
            return Recorded(entry=None, created=False, proposal=made.proposal)
        [(_, created)] = made
        refreshed: list[str] = []
        if created:  # the agents of either decision see their instructions change
            old, new = rows[decision_id]["agents"], rows[by_id]["agents"]
            named = [] if not old or not new else [*old, *new]
            refreshed = self._affected_agents(named, await self._known_agents(principal))
        entry = await self.get(principal, ProjectKind.DECISION, decision_id)
        return Recorded(entry=entry, created=created, refreshed_agents=refreshed)


def notice_id(entry_id: str, thread_id: str) -> str:
    """The id of the notice a decision leaves in a thread: the same decision and thread,
    the same id, so the thread is told once."""
    digest = hashlib.sha256(f"{entry_id}\0{thread_id}".encode()).hexdigest()[:32]
    return f"context-update-{digest}"


def entry_view(row: dict[str, Any]) -> dict[str, Any]:
    """A project context entry as the API shows it: a decision's body is ``decision``, a
    pattern's or constraint's ``description``."""
    e = plain(row)
    kind = ProjectKind(e["kind"])
    view: dict[str, Any] = {
        "id": e["id"], "kind": kind.value, "title": e["title"],
        ("decision" if kind is ProjectKind.DECISION else "description"): e["content"],
    }  # fmt: skip
    if kind is ProjectKind.DECISION:
        view |= {"context": e.get("context"), "consequences": e.get("consequences") or []}
    view |= {
        "date": e.get("decidedOn"), "status": e["status"], "agents": e.get("agents") or [],
        "tags": e.get("tags") or [], "supersededBy": e.get("supersededBy") or [],
        "supersedes": e.get("supersedes") or [], "createdAt": e["createdAt"], "updatedAt": e["updatedAt"],
        "recordedBy": recorded_by(e),
    }  # fmt: skip
    return view


def recorded_by(row: dict[str, Any]) -> dict[str, Any]:
    """Who recorded an entry (``createdByRole``, ``createdByAgent``) and, for one a person
    approved, the agent that proposed it (``proposedByRole``, ``proposedByAgent``)."""
    by = {"role": row.get("createdByRole") or Role.HUMAN.value, "agentId": row.get("createdByAgent")}
    if row.get("proposedByRole") is not None:
        by |= {"proposedByRole": row["proposedByRole"], "proposedByAgent": row.get("proposedByAgent")}
    return by
