"""Context Network as an MCP server (``ctxnet mcp``): the calls an agent makes, as tools.

Built on the ``mcp`` SDK, over stdio (an MCP client starts it as a subprocess) or streamable
HTTP. Every tool calls the API through :class:`ctxnet.client.AsyncClient` with the key in
``CTXNET_API_KEY`` (and ``CTXNET_API_URL``, default the local API), so keys, tenancy, the
write gate, the journal and corrections apply exactly as for any other caller: the server
holds no data and cannot reach another user's.

Each tool's input schema is made from the API's own request model (``ctxnet.wire.*``): the same
fields, camelCase names, types, limits and descriptions, so a tool and its endpoint cannot
drift apart; arguments are validated by that model before anything is sent, against the
limits the API answers (``GET /v1/limits``, asked once: a note's words), not this process's
environment. It loads the wire contract and the client, nothing of the service. An error of
the API comes back as a tool error carrying its status, code, message and field.

A session started with ``session_start`` is this server's session from then on: every
later call carries its id (``X-Session-ID``), so the journal attributes the agent's writes
to it, until ``session_end``. A client that starts a new server for each call (over stdio,
the MCP Inspector does) carries the session itself: every tool takes ``sessionId``, and
``session_end`` without one ends the agent's newest open session.

Arguments are checked by the API's request model, not by the SDK's copy of the schema, so
bad input comes back as the API's error reads: ``422 invalid_input: title: ... (field:
title)``, never as a raw validation dump.
"""

from __future__ import annotations

import argparse
import inspect
import logging
import operator
import os
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Annotated, Any
from urllib.parse import quote

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase
from pydantic import BaseModel, Field, ValidationError, create_model
from pydantic_core import PydanticUndefined

from ctxnet.client import ApiError, AsyncClient, Call, error_of
from ctxnet.wire.continuity.goals import GoalCloseIn, GoalIn
from ctxnet.wire.continuity.pending import ResolutionIn
from ctxnet.wire.continuity.sessions import SessionEndIn, SessionIn
from ctxnet.wire.continuity.wakeup import BriefIn, CatchUpIn, OrientIn
from ctxnet.wire.conversations import UserContextIn
from ctxnet.wire.core import LimitsOut
from ctxnet.wire.knowledge.edges import EdgeIn
from ctxnet.wire.knowledge.notes import NoteIn
from ctxnet.wire.knowledge.proposals import AcknowledgeIn
from ctxnet.wire.knowledge.search import SearchIn
from ctxnet.wire.knowledge.validity import InvalidateIn
from ctxnet.wire.limits import LIMITS, ServerLimits
from ctxnet.wire.project import UnifiedSearchIn

KEYWORD = inspect.Parameter.KEYWORD_ONLY
#: What a start without a key says (never the development key: it is a person's, and an
#: agent's writes must say so).
NO_KEY = "set CTXNET_API_KEY to the agent's key (ctxnet keys create --role agent ...)"
#: The session a tool call names (its ``sessionId``), over the server's own for that call.
_CALL_SESSION: ContextVar[str | None] = ContextVar("call_session", default=None)

INSTRUCTIONS = """Context Network is your memory across sessions. At the start of a session call
session_start (it answers with a context bridge: what happened before), then orient (one call:
goals, corrections waiting for you, skills, next likely calls). Use catch_up to see what changed
since your last session, brief_me for a task's decisions, notes and insights within a token
budget. Search before you write; remember one atomic fact per note and connect related notes.
Acknowledge people's corrections: they outrank what agents wrote. End with session_end."""


class ContextNetworkTools:
    """The tools, bound to one API client (and to the session this server is in, if any)."""

    def __init__(self, client: AsyncClient) -> None:
        self.client = client
        self.session_id: str | None = None
        self._limits: ServerLimits | None = None

    async def limits(self) -> ServerLimits:
        """The API's limits, asked once (``GET /v1/limits``): what arguments are checked against."""
        if self._limits is None:
            self._limits = LimitsOut.model_validate(await self.call("GET", "/v1/limits")).server()
        return self._limits

    async def call(
        self, method: str, path: str, json: Any = None, params: dict[str, Any] | None = None
    ) -> Any:
        """One API call, in this server's session; an API error becomes a tool error."""
        session = _CALL_SESSION.get() or self.session_id
        headers = {"X-Session-ID": session} if session else None
        try:
            response = await self.client.send(Call(method, path, json, params), headers=headers)
        except Exception as exc:  # noqa: BLE001 - the agent gets the reason, not a crash
            raise ToolError(f"the Context Network API at {self.client.url} did not answer: {exc}") from exc
        if response.status_code >= 400:
            error: ApiError = error_of(response)
            raise ToolError(
                f"{error.status} {error.code}: {error.message}"
                + (f" (field: {error.field})" if error.field else "")
            )
        return response.json() if response.content else {}


def invalid_input(exc: ValidationError) -> ToolError:
    """Bad arguments as the API reports them: status, code, ``field: message``, the field."""
    found = exc.errors()
    first = found[0] if found else {"loc": (), "msg": "invalid input"}
    field = ".".join(str(p) for p in first["loc"]) or None
    message = f"{field}: {first['msg']}" if field else str(first["msg"])
    more = "".join(f"; {'.'.join(map(str, e['loc']))}: {e['msg']}" for e in found[1:])
    return ToolError(f"422 invalid_input: {message}{more}" + (f" (field: {field})" if field else ""))


#: A tool's work: the server's tools, the validated body (camelCase JSON), the path and
#: query arguments.
ToolWork = Callable[["ContextNetworkTools", dict[str, Any], dict[str, Any]], Awaitable[Any]]


def _escaped(arguments: dict[str, Any]) -> dict[str, str]:
    """Path arguments as URL path segments: an id is one segment, whatever it holds."""
    return {k: quote(str(v), safe="") for k, v in arguments.items()}


def _annotated(kind: Any, *metadata: Any) -> Any:
    """``Annotated[kind, *metadata]``, built at run time (the metadata is the model's)."""
    return operator.getitem(Annotated, (kind, *metadata))


def _parameters(model: type[BaseModel]) -> list[inspect.Parameter]:
    """The model's fields as keyword parameters: camelCase names, the field's type,
    constraints and description, its default (required fields have none)."""
    parameters = []
    for name, field in model.model_fields.items():
        described = Field(description=field.description) if field.description else Field()
        kind: Any = field.annotation
        default: Any = inspect.Parameter.empty
        if field.default_factory is not None:
            kind, default = kind | None, None  # the model makes it when left out
        elif not field.is_required():
            default = None if field.default is PydanticUndefined else field.default
        annotation = _annotated(kind, *field.metadata, described)
        parameters.append(
            inspect.Parameter(field.alias or name, KEYWORD, default=default, annotation=annotation)
        )
    return parameters


def add_tool(
    server: MCPServer[Any],
    tools: ContextNetworkTools,
    name: str,
    description: str,
    work: ToolWork,
    *,
    model: type[BaseModel] | None = None,
    path: tuple[tuple[str, type, str], ...] = (),
    query: tuple[tuple[str, type, str], ...] = (),
) -> None:
    """Register a tool whose input is the required ``path`` arguments and the optional
    ``query`` ones (name, type, description), plus the fields of the API's request ``model``."""
    in_body = model is not None and any((f.alias or n) == "sessionId" for n, f in model.model_fields.items())
    if not in_body and not any(p[0] == "sessionId" for p in path + query):
        query = (*query, ("sessionId", str, "Your session (default: the one session_start began here)."))
    path_names = [p[0] for p in path + query]
    keyword = inspect.Parameter.KEYWORD_ONLY
    parameters = (
        [
            inspect.Parameter(name_, keyword, annotation=Annotated[type_, Field(description=doc)])
            for name_, type_, doc in path
        ]
        + [
            inspect.Parameter(
                name_, keyword, default=None, annotation=Annotated[type_ | None, Field(description=doc)]
            )
            for name_, type_, doc in query
        ]
        + (_parameters(model) if model is not None else [])
    )

    async def run(**arguments: Any) -> dict[str, Any]:
        given = {k: v for k, v in arguments.items() if v is not None}
        at = {k: given.pop(k) for k in path_names if k in given}
        for name_, type_, _ in path + query:
            if name_ in at and not isinstance(at[name_], type_):
                raise invalid_input(_wrong(name_, type_, at[name_]))
        missing = [p[0] for p in path if p[0] not in at]
        if missing:
            raise ToolError(f"422 invalid_input: {missing[0]}: Field required (field: {missing[0]})")
        sent: dict[str, Any] = {}
        if model is not None:
            context = {LIMITS: await tools.limits()}
            try:
                checked = model.model_validate(given, context=context)
                sent = checked.model_dump(mode="json", by_alias=True, exclude_none=True)
            except ValidationError as exc:
                raise invalid_input(exc) from exc
        token = _CALL_SESSION.set(str(at["sessionId"]) if at.get("sessionId") else None)
        try:
            answer = await work(tools, sent, at)
        finally:
            _CALL_SESSION.reset(token)
        return answer if isinstance(answer, dict) else {"items": answer}

    run.__name__ = name
    run.__signature__ = inspect.Signature(parameters, return_annotation=dict[str, Any])  # type: ignore[attr-defined]
    server.add_tool(run, name=name, description=description)
    # The SDK checks arguments against the schema before the tool runs, and reports a miss as
    # its raw validation text; the schema stays the model's, but the check is the model's own
    # in ``run``, which answers as the API does.
    tool = server._tool_manager.get_tool(name)
    if tool is not None:
        strict = tool.fn_metadata.arg_model
        lax = {
            field: (Any, Field(default=None, alias=info.alias)) for field, info in strict.model_fields.items()
        }
        unchecked = f"{strict.__name__}Unchecked"
        tool.fn_metadata.arg_model = create_model(unchecked, __base__=ArgModelBase, **lax)  # type: ignore[call-overload]


def _wrong(name: str, kind: type, value: Any) -> ValidationError:
    """The error of a path or query argument of the wrong type."""
    expected = {str: "string_type", bool: "bool_type"}.get(kind, "string_type")
    return ValidationError.from_exception_data(name, [{"type": expected, "loc": (name,), "input": value}])


def build_server(client: AsyncClient) -> MCPServer[Any]:
    """The MCP server with every tool, calling the API through ``client``."""
    server: MCPServer[Any] = MCPServer("context-network", instructions=INSTRUCTIONS, log_level="WARNING")
    tools = ContextNetworkTools(client)

    async def session_start(t: ContextNetworkTools, body: dict[str, Any], _: dict[str, Any]) -> Any:
        answer = await t.call("POST", "/v1/sessions", body)
        t.session_id = answer["session"]["id"]
        return answer

    async def session_end(t: ContextNetworkTools, body: dict[str, Any], at: dict[str, Any]) -> Any:
        session_id = at.get("sessionId") or t.session_id
        if not session_id:  # a server started for this one call (stdio): the agent's newest open one
            me = await t.call("GET", "/v1/me")
            params = {"agentId": me["agentId"], "limit": 50} if me.get("agentId") else {"limit": 50}
            listed = await t.call("GET", "/v1/sessions", params=params)
            session_id = next((s["id"] for s in listed["items"] if s.get("status") == "open"), None)
        if not session_id:
            raise ToolError("no session to end: start one with session_start, or give sessionId")
        answer = await t.call("POST", f"/v1/sessions/{quote(str(session_id), safe='')}/end", body)
        if session_id == t.session_id:
            t.session_id = None
        return answer

    def post(path: str) -> ToolWork:
        async def work(t: ContextNetworkTools, body: dict[str, Any], at: dict[str, Any]) -> Any:
            return await t.call("POST", path.format(**_escaped(at)), body)

        return work

    #: What a listing tool takes to page on: how many at most, and the page before's nextCursor.
    PAGED = ("limit", "cursor")
    PAGE = (("limit", int, "How many at most (a heavy page holds fewer)."),
            ("cursor", str, "The nextCursor of the page before, to go on from there."))  # fmt: skip

    def get(
        path: str, *query: str
    ) -> Callable[[ContextNetworkTools, dict[str, Any], dict[str, Any]], Awaitable[Any]]:
        async def work(t: ContextNetworkTools, _: dict[str, Any], at: dict[str, Any]) -> Any:
            params = {k: at[k] for k in query if at.get(k) is not None}
            if "sessionId" in query and "sessionId" not in params and t.session_id:
                params["sessionId"] = t.session_id
            return await t.call("GET", path.format(**_escaped(at)), params=params)

        return work

    add_tool(
        server, tools, "search",
        "Search your notes by meaning and keywords (hybrid), with the notes connected to each hit. "
        "Use it before writing, to find what is already known.",
        post("/v1/search"), model=SearchIn,
    )  # fmt: skip
    add_tool(
        server, tools, "remember",
        "Store one atomic note (a fact, concept, procedure or decision, at most 300 words). A note "
        "nearly identical to one you have is folded into it, not duplicated; one that changes a "
        "value of it (a number, a date, a name) supersedes it.",
        post("/v1/knowledge"), model=NoteIn,
    )  # fmt: skip
    add_tool(
        server, tools, "connect",
        "Connect two of your notes with a typed edge: relatedTo, dependsOn, supersedes (marks the "
        "target superseded) or conflictsWith.",
        post("/v1/knowledge/{sourceId}/connections"), model=EdgeIn,
        path=(("sourceId", str, "The note the edge starts from."),),
    )  # fmt: skip
    add_tool(
        server, tools, "invalidate",
        "State that one of your notes stopped being true (now, or `at`), and why: reads that feed "
        "you leave it out from then on; what a person wrote waits for the person.",
        post("/v1/knowledge/{id}/invalidate"), model=InvalidateIn,
        path=(("id", str, "The note that stopped being true."),),
    )  # fmt: skip
    add_tool(
        server, tools, "recall",
        "Recall what was learned in conversations (insights: preferences, facts, decisions, "
        "questions) relevant to a query, and the recent topics.",
        post("/v1/context/user"), model=UserContextIn,
    )  # fmt: skip
    add_tool(
        server, tools, "unified_search",
        "Search notes, conversation insights and project docs (decisions, patterns, constraints, "
        "agents' docs) at once, in one ranking.",
        post("/v1/search/unified"), model=UnifiedSearchIn,
    )  # fmt: skip
    add_tool(
        server, tools, "orient",
        "Call first in a session: where things stand (goals, corrections waiting for this session, "
        "notes touched lately, skills that fit, the calls likely next and why), in one call.",
        post("/v1/orient"), model=OrientIn,
    )  # fmt: skip
    add_tool(
        server, tools, "catch_up",
        "What changed since your last saved session (or `since`): sessions, changes, knowledge, "
        "work, saved pages, approvals.",
        post("/v1/catch-up"), model=CatchUpIn,
    )  # fmt: skip
    add_tool(
        server, tools, "brief_me",
        "Before a task: the decisions, notes, saved sessions and insights for it, as one text "
        "within a token budget.",
        post("/v1/brief"), model=BriefIn,
    )  # fmt: skip
    add_tool(
        server, tools, "session_start",
        "Start your session with the user; the answer carries the context bridge (earlier sessions, "
        "open pending actions, memory on the topic, the user's profile). Later calls belong to it.",
        session_start, model=SessionIn,
    )  # fmt: skip
    add_tool(
        server, tools, "session_end",
        "End the session with a summary, topics, key decisions and pending actions for next time.",
        session_end, model=SessionEndIn,
        query=(("sessionId", str, "The session to end (default: the one session_start began)."),),
    )  # fmt: skip
    add_tool(
        server, tools, "pending_actions",
        "The pending actions left by sessions: open ones, oldest first (status `open` or `done`).",
        get("/v1/pending-actions", "status", "agentId", *PAGED),
        query=(("status", str, "open (default) or done"), ("agentId", str, "Only this agent's."), *PAGE),
    )  # fmt: skip
    add_tool(
        server, tools, "resolve_pending_action",
        "Mark a pending action done, saying how it was resolved.",
        post("/v1/pending-actions/{id}/ack"), model=ResolutionIn,
        path=(("id", str, "The pending action's id."),),
    )  # fmt: skip
    add_tool(
        server, tools, "set_goal",
        "Push a goal onto the goal stack (optionally under an active parent goal); it outlives sessions.",
        post("/v1/goals"), model=GoalIn,
    )  # fmt: skip
    add_tool(
        server, tools, "goals",
        "The goal stack: active goals first (newest on top), then closed ones.",
        get("/v1/goals", "status", *PAGED), query=(("status", str, "active, completed or abandoned"), *PAGE),
    )  # fmt: skip
    add_tool(
        server, tools, "complete_goal",
        "Mark an active goal completed, with its outcome (not while subgoals are open).",
        post("/v1/goals/{id}/complete"), model=GoalCloseIn, path=(("id", str, "The goal's id."),),
    )  # fmt: skip
    add_tool(
        server, tools, "skills",
        "The skills you can load (how-tos in markdown), with the trigger telling when to load each.",
        get("/v1/skills", "bundle", *PAGED), query=(("bundle", str, "Only this bundle's."), *PAGE),
    )  # fmt: skip
    add_tool(
        server, tools, "load_skill",
        "Load a skill: its markdown body (counts one use).",
        post("/v1/skills/{id}/load"), path=(("id", str, "The skill's id, e.g. starter:wake-up."),),
    )  # fmt: skip
    add_tool(
        server, tools, "corrections",
        "People's corrections of what agents wrote. They outrank agent writes: read them, act on "
        "them, then acknowledge each for this session.",
        get("/v1/corrections", "unacknowledged", "sessionId", *PAGED),
        query=(("unacknowledged", bool, "Only those this session has not acknowledged."),
               ("sessionId", str, "The session (default: this server's)."), *PAGE),
    )  # fmt: skip
    add_tool(
        server, tools, "acknowledge_correction",
        "Acknowledge a person's correction for your session, saying what you did about it.",
        post("/v1/corrections/{id}/ack"), model=AcknowledgeIn, path=(("id", str, "The correction's id."),),
    )  # fmt: skip
    return server


def serve(transport: str, url: str | None, key: str, host: str, port: int) -> None:
    """Run the server over ``transport`` (stdio or http) until it is stopped, for the agent
    whose ``key`` it is (one agent: its session is the server's)."""
    logging.getLogger("httpx").setLevel(logging.WARNING)  # a line per call would drown the client's log
    client = AsyncClient(url, key)
    server = build_server(client)
    if transport == "stdio":
        server.run("stdio")
    else:
        server.run("streamable-http", host=host, port=port)


def main(argv: list[str] | None = None) -> None:
    """``ctxnet-mcp``: the MCP server alone, as ``ctxnet mcp`` runs it, for an install without
    the service (``pip install 'context-network[mcp]'``)."""
    parser = argparse.ArgumentParser(prog="ctxnet-mcp", description="Context Network to MCP clients.")
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    parser.add_argument("--url", default=None, help="The API (default CTXNET_API_URL, else the local one).")
    parser.add_argument("--host", default="127.0.0.1", help="Where the http transport listens.")
    parser.add_argument("--port", type=int, default=8765, help="The http transport's port.")
    args = parser.parse_args(argv)
    key = os.environ.get("CTXNET_API_KEY")
    if not key:
        parser.exit(2, NO_KEY + "\n")
    serve(args.transport, args.url, key, args.host, args.port)


if __name__ == "__main__":
    main()
