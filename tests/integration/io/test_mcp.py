"""`ctxnet mcp` over stdio, driven by the `mcp` package's own client: tools listed with the
API's schemas, each called against the real API and Neo4j, the session carried, errors
reported as tool errors, and nothing of another user's reachable."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from typing import Any

import httpx
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from graph.core.principals import Role
from tests.integration.conftest import Caller, MakeCaller, correct_and_propose
from tests.support.servers import ApiProcess, free_port

TOOLS = {
    "search", "remember", "connect", "invalidate", "recall", "unified_search", "orient", "catch_up",
    "brief_me", "session_start", "session_end", "pending_actions", "resolve_pending_action", "set_goal",
    "goals", "complete_goal", "skills", "load_skill", "corrections", "acknowledge_correction",
}  # fmt: skip


def server(api: ApiProcess, caller: Caller) -> StdioServerParameters:
    """``ctxnet mcp`` as an MCP client starts it: a subprocess, the key in its environment."""
    env = dict(os.environ) | {"CTXNET_API_KEY": caller.key, "CTXNET_API_URL": api.base_url}
    return StdioServerParameters(command=sys.executable, args=["-m", "ctxnet", "mcp"], env=env)


async def call(session: ClientSession, name: str, **arguments: Any) -> Any:
    result = await session.call_tool(name, arguments)
    assert not result.is_error, (name, result.content)
    return (
        result.structured_content
        if result.structured_content is not None
        else json.loads(result.content[0].text)
    )


async def test_an_agent_works_through_the_tools(make_caller: MakeCaller, api: ApiProcess) -> None:
    person = await make_caller(Role.HUMAN)
    agent = await make_caller(Role.AGENT, agent_id="mcp-agent", user_id=person.user_id)
    ids = await correct_and_propose(person, agent, "port", "The staging port is 7688.")
    async with stdio_client(server(api, agent)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = (await session.list_tools()).tools
        assert {t.name for t in listed} == TOOLS
        schemas = {t.name: t.input_schema for t in listed}
        # The schemas are the API's request models: names, limits, required fields.
        assert schemas["remember"]["required"] == ["title", "content", "type"]
        assert schemas["search"]["properties"]["topK"]["maximum"] == 100
        assert all(t.description for t in listed)

        started = await call(session, "session_start", topic="staging ports")
        session_id = started["session"]["id"]
        made = await call(
            session, "remember", id="deploy", title="Deploys", content="We deploy on Fridays.", type="fact"
        )
        assert made["node"]["id"] == "deploy"
        await call(
            session,
            "remember",
            id="freeze",
            title="Freeze",
            content="No deploys during the freeze.",
            type="fact",
        )
        edge = await call(session, "connect", sourceId="freeze", type="dependsOn", targetId="deploy")
        assert edge["edge"]["type"] == "dependsOn"
        found = await call(session, "search", query="when do we deploy", topK=2)
        assert found["hits"][0]["node"]["id"] == "deploy"
        ended = await call(session, "invalidate", id="freeze", reason="the freeze is over")
        assert ended["invalidReason"] == "the freeze is over"
        assert "freeze" not in [
            h["node"]["id"] for h in (await call(session, "search", query="freeze"))["hits"]
        ]
        # The session reached the journal: the agent's writes are attributed to it.
        [mutation] = (await person.http.get("/v1/mutations", params={"targetId": "deploy"})).json()["items"]
        assert mutation["actor"]["sessionId"] == session_id

        oriented = await call(session, "orient", goal="deploy on Friday")
        assert oriented["lastCorrections"][0]["targetId"] == "port"
        waiting = await call(session, "corrections", unacknowledged=True)
        assert [c["id"] for c in waiting["items"]] == [ids["correction"]]
        await call(session, "acknowledge_correction", id=ids["correction"], sessionId=session_id,
                   actionTaken="Using the corrected port.")  # fmt: skip
        assert (await call(session, "corrections", unacknowledged=True))["items"] == []
        assert (await call(session, "catch_up"))["cutoffTier"]
        brief = await call(session, "brief_me", task="deploy on Friday", tokenBudget=300)
        assert brief["tokens"] <= 300
        assert (await call(session, "recall", query="deploys"))["insights"] == []
        assert {r["layer"] for r in (await call(session, "unified_search", query="deploys"))["results"]} == {
            "knowledge"
        }
        goal = await call(session, "set_goal", title="Ship on Friday")
        assert (await call(session, "goals"))["items"][0]["id"] == goal["id"]
        assert (await call(session, "complete_goal", id=goal["id"], outcome="Shipped"))[
            "status"
        ] == "completed"
        assert (await call(session, "skills"))["items"] == []
        ended = await call(
            session,
            "session_end",
            summary="Deploys noted.",
            pendingActions=["Check the freeze dates", "Tell QA"],
        )
        pending, later = ended["pendingActions"]
        assert [p["id"] for p in (await call(session, "pending_actions"))["items"]] == [
            pending["id"],
            later["id"],
        ]
        first = await call(session, "pending_actions", limit=1)  # a listing tool pages on
        assert [p["id"] for p in first["items"]] == [pending["id"]]
        rest = await call(session, "pending_actions", limit=1, cursor=first["nextCursor"])
        assert [p["id"] for p in rest["items"]] == [later["id"]] and "nextCursor" not in rest
        done = await call(session, "resolve_pending_action", id=pending["id"], resolution="Checked.")
        assert done["status"] == "done"

        # Errors come back as tool errors, with the API's code and field; bad input is
        # refused by the same model before anything is sent.
        missing = await session.call_tool("load_skill", {"id": "nothing"})
        assert missing.is_error and "404 not_found" in missing.content[0].text
        invalid = await session.call_tool("remember", {"title": "x", "content": "y", "type": "opinion"})
        assert invalid.is_error and "type" in invalid.content[0].text
        blank = await session.call_tool("remember", {"title": " ", "content": "y", "type": "fact"})
        assert blank.is_error and "title" in blank.content[0].text
        # An agent writing back text a person corrected away gets a proposal, not a new note.
        held = await call(
            session,
            "remember",
            id="port2",
            title="Agent note",
            content="The staging port is 7688.",
            type="fact",
        )
        assert held.get("proposal", {}).get("status") == "pending", held


async def test_another_users_data_is_out_of_reach(make_caller: MakeCaller, api: ApiProcess) -> None:
    alice = await make_caller(Role.HUMAN)
    note = {"id": "secret", "title": "Secret", "content": "Alice's launch date is May 4.", "type": "fact"}
    assert (await alice.http.post("/v1/knowledge", json=note)).status_code == 201
    mallory = await make_caller(Role.AGENT, agent_id="mallory")
    async with stdio_client(server(api, mallory)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        assert (await call(session, "search", query="launch date"))["hits"] == []
        edge = await session.call_tool(
            "connect", {"sourceId": "secret", "type": "relatedTo", "targetId": "secret2"}
        )
        assert edge.is_error and "404" in edge.content[0].text
        assert (await call(session, "unified_search", query="launch date"))["results"] == []


async def test_the_streamable_http_transport_serves_the_same_tools(
    make_caller: MakeCaller, api: ApiProcess
) -> None:
    alice = await make_caller(Role.AGENT, agent_id="http-agent")
    port = free_port()
    env = dict(os.environ) | {"CTXNET_API_KEY": alice.key, "CTXNET_API_URL": api.base_url}
    process = subprocess.Popen(
        [sys.executable, "-m", "ctxnet", "mcp", "--transport", "http", "--port", str(port)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        for _ in range(100):  # until it listens
            try:
                httpx.get(url, timeout=1)
                break
            except httpx.TransportError:
                await asyncio.sleep(0.2)
        async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            assert {t.name for t in (await session.list_tools()).tools} == TOOLS
            made = await call(
                session, "remember", id="h1", title="HTTP", content="Served over HTTP.", type="fact"
            )
            assert made["node"]["id"] == "h1"
            assert (await call(session, "search", query="served over HTTP"))["hits"][0]["node"]["id"] == "h1"
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_without_a_key_the_server_does_not_start() -> None:
    # Never the development key (a person's): an agent's writes must be an agent's.
    env = {k: v for k, v in os.environ.items() if k != "CTXNET_API_KEY"}
    done = subprocess.run(
        [sys.executable, "-m", "ctxnet", "mcp"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2 and "CTXNET_API_KEY" in done.stderr
