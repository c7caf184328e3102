"""The limits a server's settings decide come from the server: ``GET /v1/limits`` answers its
configured values, a client that knows none leaves them to the server (whose 422 comes back
through :class:`ApiError` naming the field), and the MCP tools check against the API's."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mcp.server.mcpserver.exceptions import ToolError

from ctxnet.client import AsyncClient, Client, InvalidInput
from ctxnet.mcp_server import build_server
from ctxnet.wire import limits
from ctxnet.wire.knowledge.notes import NoteIn
from graph.core.embeddings import embedder_dimension
from graph.core.principals import Role
from graph.core.settings import Settings
from tests.integration.conftest import MakeCaller
from tests.support.servers import ApiProcess, running_api

#: The word limit of the API these tests start (the default is 300).
WORDS = 40


@pytest.fixture(scope="module")
def strict_api(neo4j_server: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiProcess]:
    """An API whose notes hold at most :data:`WORDS` words."""
    log = tmp_path_factory.mktemp("strict-api") / "api.log"
    env = {"CTXNET_API_KEY_CACHE_SECONDS": "0", "CTXNET_NOTE_MAX_WORDS": str(WORDS)}
    with running_api(log, env) as process:
        yield process


@pytest.fixture(autouse=True)
def no_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process is a client: no server's limits installed (another test may have made an app)."""
    monkeypatch.setattr(limits, "_provider", None)


def _note(words: int, **more: object) -> dict[str, object]:
    return {"title": "Long", "content": " ".join(["word"] * words), "type": "fact", "dedupe": False} | more


@pytest.mark.smoke
async def test_limits_answer_the_servers_settings(
    make_caller: MakeCaller, api: ApiProcess, strict_api: ApiProcess, settings: Settings
) -> None:
    alice = await make_caller(Role.AGENT, agent_id="writer")
    with Client(strict_api.base_url, alice.key) as cn:
        strict = cn.limits()
    assert (strict.max_note_words, strict.vector_size) == (WORDS, embedder_dimension(settings))
    assert (strict.max_notes_per_batch, strict.max_edges_per_batch, strict.max_content_chars) == (
        1_000, 1_000, 20_000,
    )  # fmt: skip
    async with AsyncClient(api.base_url, alice.key) as cn:
        default = await cn.limits()
    assert default.max_note_words == settings.note_max_words
    assert default.model_dump() == strict.model_dump() | {"max_note_words": settings.note_max_words}


async def test_a_client_leaves_the_word_limit_to_the_server(
    make_caller: MakeCaller, strict_api: ApiProcess
) -> None:
    alice = await make_caller(Role.AGENT, agent_id="writer")
    long = NoteIn.model_validate(_note(WORDS + 10))  # accepted here: the client knows no limit
    with Client(strict_api.base_url, alice.key) as cn:
        with pytest.raises(InvalidInput) as refused:
            cn.create_note(long)
        assert (refused.value.status, refused.value.code, refused.value.field) == (
            422,
            "invalid_input",
            "content",
        )
        assert f"at most {WORDS}" in refused.value.message
        with pytest.raises(InvalidInput) as in_batch:
            cn.create_notes([_note(3, id="short"), _note(WORDS + 1, id="long")])
        assert in_batch.value.field == "items.1.content"
        assert cn.create_note(_note(WORDS, id="fits")).created


async def test_the_mcp_tools_check_the_apis_limits(make_caller: MakeCaller, strict_api: ApiProcess) -> None:
    alice = await make_caller(Role.AGENT, agent_id="writer")
    async with AsyncClient(strict_api.base_url, alice.key) as client:
        server = build_server(client)
        with pytest.raises(ToolError, match=f"422 invalid_input: content: .*at most {WORDS}.*field: content"):
            await server.call_tool("remember", _note(WORDS + 5))
        made = await server.call_tool("remember", _note(WORDS, id="fits"))
    assert not made.is_error
    listed = await alice.http.get("/v1/knowledge")
    assert [n["id"] for n in listed.json()["items"]] == ["fits"]
