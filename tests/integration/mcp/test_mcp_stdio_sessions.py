"""`ctxnet mcp` as clients that start a server for every call use it (the MCP Inspector over
stdio): the session carried by its id, `session_end` ending it either way, and bad arguments
answered as the API answers them (status, code, field), never as a raw validation dump."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from graph.core.principals import Role
from tests.integration.conftest import Caller, MakeCaller
from tests.support.servers import ApiProcess


def server(api: ApiProcess, caller: Caller) -> StdioServerParameters:
    env = dict(os.environ) | {"CTXNET_API_KEY": caller.key, "CTXNET_API_URL": api.base_url}
    return StdioServerParameters(command=sys.executable, args=["-m", "ctxnet", "mcp"], env=env)


async def one_call(api: ApiProcess, caller: Caller, name: str, **arguments: Any) -> Any:
    """A server started for this one call, as the Inspector does; the tool's result."""
    async with stdio_client(server(api, caller)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return await session.call_tool(name, arguments)


def answer(result: Any) -> Any:
    assert not result.is_error, result.content
    return result.structured_content or json.loads(result.content[0].text)


async def test_a_session_carried_across_servers_by_its_id(make_caller: MakeCaller, api: ApiProcess) -> None:
    person = await make_caller(Role.HUMAN)
    agent = await make_caller(Role.AGENT, agent_id="inspector", user_id=person.user_id)
    started = answer(await one_call(api, agent, "session_start", topic="ports"))
    session_id = started["session"]["id"]
    note = answer(
        await one_call(
            api, agent, "remember", title="Port", content="Staging listens on 7688.", type="fact",
            sessionId=session_id,
        )
    )  # fmt: skip
    journal = (await person.http.get("/v1/mutations", params={"sessionId": session_id})).json()["items"]
    assert note["node"]["id"] in {m["targetId"] for m in journal}  # the write is the session's
    # A new server knows no session: session_end ends the agent's open one.
    ended = answer(await one_call(api, agent, "session_end", summary="Ports checked.", messageCount=2))
    assert ended["session"]["id"] == session_id and ended["session"]["status"] == "ended"
    again = await one_call(api, agent, "session_end", summary="Nothing open.", messageCount=0)
    assert again.is_error and "no session to end" in again.content[0].text


async def test_bad_arguments_read_like_the_apis_errors(make_caller: MakeCaller, api: ApiProcess) -> None:
    agent = await make_caller(Role.AGENT, agent_id="inspector")
    async with stdio_client(server(api, agent)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        checks = {
            "remember": ({"title": 42, "content": "y", "type": "fact"}, "title"),  # the SDK's check before
            "search": ({"query": "ports", "topK": "many"}, "topK"),
            "load_skill": ({}, "id"),  # a path argument left out
            "connect": ({"sourceId": "a", "type": "nearby", "targetId": "b"}, "type"),
        }
        for tool, (arguments, field) in checks.items():
            result = await session.call_tool(tool, arguments)
            text = result.content[0].text
            # The SDK puts "Error executing tool <name>: " before every tool error's own text.
            assert result.is_error and text.startswith(
                f"Error executing tool {tool}: 422 invalid_input: {field}: "
            )
            assert text.endswith(f"(field: {field})") and "validation error for" not in text, (tool, text)
