"""Conversation memory and sessions of an export, put back through the API (the part of
``ctxnet import`` that reads ``thread``, ``message``, ``insight``, ``session`` and
``toolCall`` records).

* **Threads** are created with their ids, then their messages appended in order with their
  ids and times, then the insights extracted from them recorded as they were
  (``POST /v1/threads/{id}/insights``: same id, extractor and time; the notes made from
  them, by the import's ids, linked again). Related threads are linked once all are in.
* **Sessions** are started in the order they started (so each agent's chain is the same),
  their tool calls appended at their positions (a position the log holds is a repeat), then
  ended in the order they ended with the same summary; before a session ends, the pending
  actions that had been carried into it are carried again, and at the end the ones that
  were cleared are acknowledged with their resolution. A pending action's id comes from its
  session and place, so it is the same id again.

Everything here is keyed by id or checked against what is there, so a second run changes
nothing: a thread is a unit of the state file (``--resume`` skips the finished ones);
sessions are cheap and replayed each time, each step only when it is not done already.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from pydantic import BaseModel, ValidationError

from ctxnet.client import AsyncClient, Call, NotFound, error_of
from ctxnet.wire.continuity.sessions import SessionEndIn, SessionIn, ToolCallIn
from ctxnet.wire.conversations import InsightRecordIn, MessageIn, ThreadIn

if TYPE_CHECKING:
    from ctxnet.io.progress import Report, StateFile
    from ctxnet.io.sources import Record

#: Answers that blame the record (it is rejected; the import goes on); any other error is the
#: service's (the import stops, and a resume sends the batch again). The notes' and edges'
#: batches (:mod:`ctxnet.io.importer`) are judged the same way.
RECORD_FAULTS = frozenset({404, 409, 413, 422})
#: The records this module puts back.
MEMORY_KINDS = frozenset({"thread", "message", "insight", "session", "toolCall"})
_MESSAGES = 1_000  # per append, the API's most
_INSIGHTS = 500
_TOOL_CALLS = 500
#: What an export writes beside what the API takes back, per kind.
_EXPORT_ONLY = {
    "thread": {"createdAt", "updatedAt", "messageCount", "relatedThreads"},
    "message": {"threadId", "seq"},
    "insight": {"threadId", "sessionId", "pageSlug", "score", "textScore"},
    "toolCall": {"sessionId", "role", "agentId", "recordedAt"},
}
_SESSION_START = ("id", "agentId", "topic", "openingMessage", "threadId")
_SESSION_END = ("summary", "topics", "keyDecisions", "messageCount", "durationMinutes")


def _path(kind: str, item_id: str) -> str:
    return f"/v1/{kind}/{quote(item_id, safe='')}"


def _valid(model: type[BaseModel], data: dict[str, Any]) -> dict[str, Any]:
    return model.model_validate(data).model_dump(mode="json", by_alias=True, exclude_none=True)


def _missing(kind: str, field: str, data: dict[str, Any]) -> ValidationError:
    """The error of a record without a field the replay needs (the API's models make it optional)."""
    return ValidationError.from_exception_data(kind, [{"type": "missing", "loc": (field,), "input": data}])


def check_memory(record: Record) -> None:
    """Validate a memory record by the API's models, keeping what the replay needs beside
    (``_thread``, ``_session`` ...); a :class:`ValidationError` rejects it."""
    data = record.data
    if record.kind == "session":
        start = _valid(SessionIn, {k: data[k] for k in _SESSION_START if data.get(k) is not None})
        if not start.get("id") or not start.get("agentId"):
            missing = "id" if not start.get("id") else "agentId"
            raise _missing("session", missing, data)
        actions = sorted(data.get("pendingActions") or [], key=lambda a: int(a.get("position") or 0))
        end = None
        if data.get("status") == "ended":
            given = {k: data[k] for k in _SESSION_END if data.get(k) is not None}
            end = _valid(SessionEndIn, given | {"pendingActions": [str(a.get("text")) for a in actions]})
        record.data = {
            "start": start,
            "end": end,
            "actions": [{k: a.get(k) for k in ("id", "sessionId", "status", "resolution")} for a in actions],
            "startedAt": data.get("startedAt") or 0,
            "endedAt": data.get("endedAt") or 0,
        }
        return
    given = {k: v for k, v in data.items() if k not in _EXPORT_ONLY[record.kind]}
    if record.kind == "thread":
        related = [str(t) for t in data.get("relatedThreads") or []]
        record.data = _valid(ThreadIn, given) | {"_related": related}
    elif record.kind == "message":
        record.data = _valid(MessageIn, given) | {"_thread": str(data.get("threadId") or "")}
    elif record.kind == "insight":
        record.data = _valid(InsightRecordIn, given) | {"_thread": str(data.get("threadId") or "")}
    else:
        record.data = _valid(ToolCallIn, given) | {"_session": str(data.get("sessionId") or "")}
    if record.kind == "toolCall" and "position" not in record.data:  # what makes a repeat a repeat
        raise _missing(record.kind, "position", data)
    if record.kind in ("message", "insight") and not record.data["_thread"]:
        raise _missing(record.kind, "threadId", data)


def _public(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if not k.startswith("_")}


class Replay:
    """Puts one import's memory records back for the client's user."""

    def __init__(self, client: AsyncClient, report: Report, states: StateFile) -> None:
        self.client, self.report, self.states = client, report, states
        self.folded = report.folded  # notes of this import dedupe folded into a twin

    async def _send(self, record: Record, call: Call) -> dict[str, Any] | None:
        """The answer's body, or ``None`` when the record was at fault (rejected)."""
        answer = await self.client.send(call)
        if answer.status_code in RECORD_FAULTS:
            self.report.refused(record, error_of(answer))
            return None
        if answer.status_code >= 400:
            raise error_of(answer)  # the service's fault: stop, a resume sends it again
        body: dict[str, Any] = answer.json() if answer.content else {}
        body["_status"] = answer.status_code
        return body

    async def run(self, records: list[Record]) -> None:
        """Threads (with messages and insights), their links, then sessions."""
        threads = [r for r in records if r.kind == "thread"]
        by_thread: dict[str, list[Record]] = {}
        for record in records:
            if record.kind in ("message", "insight"):
                by_thread.setdefault(record.data["_thread"], []).append(record)
        known: dict[str, set[str]] = {}
        for thread in threads:
            known[thread.data["id"]] = await self._thread(thread, by_thread.pop(thread.data["id"], []))
        for thread_id, rest in by_thread.items():  # threads already there, not in the import
            await self._thread(None, rest, thread_id)
        for thread in threads:
            for other in thread.data["_related"]:
                if thread.data["id"] < other and other not in known[thread.data["id"]]:
                    path = _path("threads", thread.data["id"]) + "/links"
                    if await self._send(thread, Call("POST", path, {"threadId": other})) is not None:
                        self.report.memory["threadLinks"] += 1
        await self._sessions(
            [r for r in records if r.kind == "session"], [r for r in records if r.kind == "toolCall"]
        )

    async def _thread(self, thread: Record | None, records: list[Record], thread_id: str = "") -> set[str]:
        """One thread, its messages and insights; the threads it was already linked to."""
        thread_id = thread.data["id"] if thread is not None else thread_id
        unit = f"thread:{thread_id}"
        if unit in self.states.done:
            self.report.skipped_batches += 1
            return set()
        path = _path("threads", thread_id)
        related: set[str] = set()
        if thread is not None:
            body = await self._send(thread, Call("POST", "/v1/threads", _public(thread.data)))
            if body is None:  # its messages and insights go with it, each said
                why = f"its thread was rejected ({thread.where})"
                for record in records:
                    self.report.rejected.append({"where": record.where, "field": "threadId", "reason": why})
                return related
            related = set(body.get("relatedThreads", []))
            self.report.memory["threads"] += body["_status"] == 201
        try:
            had = await self.client.request_json("GET", path) if records else {"messageCount": 0}
        except NotFound as error:  # messages or insights of a thread neither imported nor yours
            for record in records:
                self.report.refused(record, error)
            return related
        messages = [r for r in records if r.kind == "message"]
        for start in range(0, len(messages), _MESSAGES):
            batch = messages[start : start + _MESSAGES]
            await self._batch(f"{path}/messages", "messages", batch)
        if messages:
            now = await self.client.request_json("GET", path)
            self.report.memory["messages"] += now["messageCount"] - had["messageCount"]
        insights = [r for r in records if r.kind == "insight"]
        for record in insights:  # notes the import folded into twins: the twin was made from it
            ids = [self.folded.get(k, k) for k in record.data.get("knowledgeIds", [])]
            record.data["knowledgeIds"] = list(dict.fromkeys(ids))
        for start in range(0, len(insights), _INSIGHTS):
            batch = insights[start : start + _INSIGHTS]
            body = await self._batch(f"{path}/insights", "items", batch)
            if body is not None:
                self.report.memory["insights"] += sum(1 for i in body["items"] if i["created"])
        self.states.finish(unit)
        return related

    async def _batch(self, path: str, key: str, batch: list[Record]) -> dict[str, Any] | None:
        """A batch (``{key: [...]}``); refused as a whole, the record the API names is
        rejected with the reason, and the rest of the batch goes again."""
        while batch:
            answer = await self.client.send(Call("POST", path, {key: [_public(r.data) for r in batch]}))
            if answer.status_code < 400:
                body: dict[str, Any] = answer.json()
                return body
            if answer.status_code not in RECORD_FAULTS - {413}:  # too large is the batch's, not a record's
                raise error_of(answer)
            error = error_of(answer)
            parts = (error.field or "").split(".")
            at = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() and int(parts[1]) < len(batch) else 0
            self.report.refused(batch[at], error)
            batch = batch[:at] + batch[at + 1 :]
        return None

    async def _sessions(self, sessions: list[Record], tool_calls: list[Record]) -> None:
        """Start every session (in the order they started), then end the ended ones (in the
        order they ended), carrying into each its pending actions first, then carry into the
        open ones theirs; then clear the cleared ones."""
        sessions.sort(key=lambda r: (r.data["startedAt"], r.data["start"]["id"]))
        actions: dict[str, dict[str, Any]] = {}  # each pending action as it is now, by id
        status: dict[str, str] = {}
        calls: dict[str, list[Record]] = {}
        for call in sorted(tool_calls, key=lambda r: r.data.get("position") or 0):
            calls.setdefault(call.data["_session"], []).append(call)
        for record in sessions:
            start = record.data["start"]
            body = await self._send(record, Call("POST", "/v1/sessions", start))
            if body is None:
                continue
            self.report.memory["sessions"] += body["_status"] == 201
            status[start["id"]] = body["session"]["status"]
            actions |= {a["id"]: a for a in body["session"]["pendingActions"]}
            await self._tool_calls(start["id"], calls.pop(start["id"], []))
        for rest in calls.values():  # tool calls of a session not in the import
            await self._tool_calls(rest[0].data["_session"], rest)
        wanted = {a["id"]: a for r in sessions for a in r.data["actions"]}
        started = [r for r in sessions if r.data["start"]["id"] in status]
        ended = [r for r in started if r.data["end"] is not None]
        still_open = [r for r in started if r.data["end"] is None]  # carried into last: all others ended
        for record in sorted(ended, key=lambda r: (r.data["endedAt"], r.data["start"]["id"])) + still_open:
            session_id = record.data["start"]["id"]
            for action_id, action in wanted.items():  # carried in while it was open
                now = actions.get(action_id)
                if action["sessionId"] == session_id and now and now["sessionId"] != session_id:
                    path = _path("pending-actions", action_id) + "/carry"
                    carried = await self._send(record, Call("POST", path, {"sessionId": session_id}))
                    if carried is not None:
                        actions[action_id] = carried
                        self.report.memory["carried"] += 1
            if status[session_id] == "ended" or record.data["end"] is None:
                continue
            path = _path("sessions", session_id) + "/end"
            body = await self._send(record, Call("POST", path, record.data["end"]))
            if body is not None:
                self.report.memory["ended"] += 1
                actions |= {a["id"]: a for a in body["pendingActions"]}
        for action_id, action in wanted.items():
            now = actions.get(action_id)
            if action["status"] == "done" and now and now["status"] == "open":
                record = next(r for r in sessions if action in r.data["actions"])
                path = _path("pending-actions", action_id) + "/ack"
                resolution = {"resolution": action["resolution"] or "cleared"}
                body = await self._send(record, Call("POST", path, resolution))
                if body is not None:
                    self.report.memory["cleared"] += 1

    async def _tool_calls(self, session_id: str, records: list[Record]) -> None:
        """The session's tool calls, each at its position: those the log holds are repeats."""
        path = _path("sessions", session_id) + "/tool-calls"
        for start in range(0, len(records), _TOOL_CALLS):
            body = await self._batch(path, "items", records[start : start + _TOOL_CALLS])
            if body is not None:
                self.report.memory["toolCalls"] += body["appended"]
