"""Claude's memory tool over the real service: every command of the SDK's own tests
(tests/lib/tools/memory_tools/test_filesystem.py) sent to this backend and to the SDK's
``BetaLocalFilesystemMemoryTool`` side by side, with the same answers, the same errors and the
same files byte for byte; and what this service adds (a person's correction holds against the
model's next edit, the desk shows what the model wrote, every read the user's own)."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from anthropic.lib.tools import BetaAbstractMemoryTool, ToolError
from anthropic.lib.tools._beta_builtin_memory_tool import BetaLocalFilesystemMemoryTool

from ctxnet.integrations.anthropic_memory import ContextNetworkMemoryTool, file_tag
from graph.core.principals import Role
from tests.integration.conftest import Caller, MakeCaller
from tests.integration.desk.test_desk_http import desk_of
from tests.support.doc_examples import example
from tests.support.servers import ApiProcess, running_api

MakeTool = Callable[..., ContextNetworkMemoryTool]
#: docs/integrations.md's example, run by :func:`test_the_documented_example_runs`.
CLAUDE_EXAMPLE = example("integrations.md", "## Claude's memory tool")
#: The word limit of the API :func:`strict_api` starts (the default is 300).
WORDS = 40


@pytest.fixture(scope="module")
def strict_api(neo4j_server: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiProcess]:
    """An API whose notes hold at most :data:`WORDS` words."""
    log = tmp_path_factory.mktemp("strict-api") / "api.log"
    env = {"CTXNET_API_KEY_CACHE_SECONDS": "0", "CTXNET_NOTE_MAX_WORDS": str(WORDS)}
    with running_api(log, env) as process:
        yield process


@pytest_asyncio.fixture
async def make_tool(api: ApiProcess) -> AsyncIterator[MakeTool]:
    made: list[ContextNetworkMemoryTool] = []

    def make(caller: Caller, **options: Any) -> ContextNetworkMemoryTool:
        tool = ContextNetworkMemoryTool(url=api.base_url, api_key=caller.key, **options)
        made.append(tool)
        return tool

    yield make
    for tool in made:
        tool.close()


def answer(tool: BetaAbstractMemoryTool, command: dict[str, Any]) -> str:
    """What the model reads back: the result, or ``error: ...`` for a ToolError. Directory sizes
    are the disk's own, so they are left out."""
    try:
        said = str(tool.call(command))
    except ToolError as error:
        return f"error: {error.content}"
    return re.sub(r"^[0-9.]+[BKMG]\t(.*/)$|^[0-9.]+[BKMG]\t(/memories[^\n]*)$", r"D\t\1\2", said, flags=re.M)


def files(tool: BetaAbstractMemoryTool) -> dict[str, str]:
    """Every file and its text, byte for byte."""
    if isinstance(tool, BetaLocalFilesystemMemoryTool):
        root = tool.memory_root
        return {
            "/memories/" + str(p.relative_to(root)): p.read_bytes().decode()
            for p in root.rglob("*")
            if p.is_file()
        }
    assert isinstance(tool, ContextNetworkMemoryTool)
    notes = tool.client.iter_json("/v1/knowledge", tag="memories", limit=500)
    return {n["data"]["path"]: n["data"]["text"] for n in notes}


def create(path: str, text: str) -> dict[str, Any]:
    return {"command": "create", "path": path, "file_text": text}


#: The SDK's tests, as commands, in order (each file and its expectation are named by its test).
SCRIPT: list[dict[str, Any]] = [
    create("/memories/test_file.txt", "Hello, World!"),  # test_create
    create("/memories/deep/nested/file.txt", "Nested file"),  # test_create_nested_directories
    create("/memories/existing.txt", "Original"),  # test_create_error_if_file_already_exists
    create("/memories/existing.txt", "New"),
    create("/memories/view_test.txt", "Line 1\nLine 2\nLine 3"),  # test_view_file
    {"command": "view", "path": "/memories/view_test.txt"},
    create("/memories/dir/file1.txt", "File 1"),  # test_view_directory
    create("/memories/dir/file2.txt", "File 2"),
    {"command": "view", "path": "/memories/dir"},
    create("/memories/range_test.txt", "Line 1\nLine 2\nLine 3\nLine 4\nLine 5"),  # test_view_file_with_range
    {"command": "view", "path": "/memories/range_test.txt", "view_range": [2, 4]},
    {"command": "view", "path": "/memories/range_test.txt", "view_range": [3, -1]},
    {"command": "view", "path": "/memories/nonexistent.txt"},  # test_view_error_for_non_existent_file
    create("/memories/replace_test.txt", "Line 1\nOld Text\nLine 3"),  # test_str_replace
    {
        "command": "str_replace",
        "path": "/memories/replace_test.txt",
        "old_str": "Old Text",
        "new_str": "New Text",
    },
    {
        "command": "str_replace",
        "path": "/memories/replace_test.txt",
        "old_str": "NotFound",
        "new_str": "Python",
    },
    create("/memories/replace_many.txt", "Hello\nMiddle\nHello"),  # ..._appears_multiple_times
    {"command": "str_replace", "path": "/memories/replace_many.txt", "old_str": "Hello", "new_str": "Hi"},
    {"command": "str_replace", "path": "/memories/nonexistent.txt", "old_str": "old", "new_str": "new"},
    create("/memories/insert_test.txt", "Line 1\nLine 2"),  # test_insert
    {
        "command": "insert",
        "path": "/memories/insert_test.txt",
        "insert_line": 1,
        "insert_text": "Inserted Line",
    },
    {"command": "insert", "path": "/memories/insert_test.txt", "insert_line": 0, "insert_text": "First Line"},
    {
        "command": "insert",
        "path": "/memories/insert_test.txt",
        "insert_line": 4,
        "insert_text": "Last Line\n",
    },
    {"command": "insert", "path": "/memories/nonexistent.txt", "insert_line": 0, "insert_text": "text"},
    {"command": "insert", "path": "/memories/insert_test.txt", "insert_line": 10, "insert_text": "text"},
    create("/memories/delete_me.txt", "To be deleted"),  # test_delete
    {"command": "delete", "path": "/memories/delete_me.txt"},
    create("/memories/subdir/file.txt", "Content"),  # test_delete_directory
    {"command": "delete", "path": "/memories/subdir"},
    {"command": "delete", "path": "/memories/nonexistent.txt"},  # test_delete_error_when_file_not_found
    {"command": "delete", "path": "/memories"},  # test_delete_not_allow_deleting_memories_directory
    create("/memories/old_name.txt", "Original content"),  # test_rename
    {"command": "rename", "old_path": "/memories/old_name.txt", "new_path": "/memories/new_name.txt"},
    {"command": "rename", "old_path": "/memories/new_name.txt", "new_path": "/memories/nested/dir/file.txt"},
    {"command": "rename", "old_path": "/memories/nonexistent.txt", "new_path": "/memories/new.txt"},
    {"command": "rename", "old_path": "/memories/dir/file1.txt", "new_path": "/memories/dir/file2.txt"},
    {"command": "rename", "old_path": "/memories", "new_path": "/memories/x"},
    {"command": "rename", "old_path": "/memories/deep", "new_path": "/memories/shallow"},  # a directory
    create("/invalid/path.txt", "Invalid"),  # test_path_validation_reject_paths_not_starting_with_memories
    create("/memories/../../../etc/passwd", "Escape attempt"),  # ..._trying_to_escape_memories
    {"command": "view", "path": "/memories/./dir/../view_test.txt"},
    # Beyond the SDK's tests: bytes as written, a trailing newline, CRs, other scripts, an empty file.
    create("/memories/bytes.md", "# Notes\r\n\r\n- café ☕ 中文\n\ttabbed  \n\n"),
    {"command": "view", "path": "/memories/bytes.md"},
    create("/memories/empty.txt", ""),
    {"command": "insert", "path": "/memories/empty.txt", "insert_line": 0, "insert_text": "now one line"},
    {"command": "str_replace", "path": "/memories/dir", "old_str": "a", "new_str": "b"},
    {"command": "view", "path": "/memories"},
]


async def test_the_sdks_tests_answer_as_its_filesystem_tool(
    make_caller: MakeCaller, make_tool: MakeTool, tmp_path: Path
) -> None:
    ours, disk = make_tool(await make_caller()), BetaLocalFilesystemMemoryTool(base_path=str(tmp_path))
    for command in SCRIPT:
        assert answer(ours, command) == answer(disk, command), command
    assert files(ours) == files(disk)
    assert (
        files(ours)["/memories/insert_test.txt"] == "First Line\nLine 1\nInserted Line\nLine 2\nLast Line\n"
    )
    assert files(ours)["/memories/bytes.md"].endswith("  \n\n")


async def test_bounds_and_another_user(make_caller: MakeCaller, make_tool: MakeTool) -> None:
    alice, mallory = make_tool(await make_caller()), make_tool(await make_caller())
    big = "line\n" * 20_000  # 100 KB: the SDK's filesystem keeps it, a note's data does not
    assert answer(alice, create("/memories/big.txt", big)).startswith(
        "error: File /memories/big.txt is too large"
    )
    long = " ".join(f"word{i}" for i in range(2_000))  # far past the word limit: kept whole, excerpted
    assert answer(alice, create("/memories/long.txt", long)).startswith("File created")
    assert files(alice) == {"/memories/long.txt": long}
    limits = alice.client.limits()  # the server's own word limit clips the excerpt
    assert alice.limits == limits
    [note] = alice.client.iter_json("/v1/knowledge", tag="memories")
    assert note["content"] == " ".join(long.split()[: limits.max_note_words])
    assert answer(mallory, {"command": "view", "path": "/memories/long.txt"}).startswith("error: The path")
    assert files(mallory) == {}
    assert answer(mallory, create("/memories/long.txt", "mine")).startswith("File created")  # another note
    assert files(alice) == {"/memories/long.txt": long}


async def test_the_excerpt_follows_the_servers_word_limit(
    make_caller: MakeCaller, strict_api: ApiProcess
) -> None:
    caller = await make_caller()
    long = " ".join(f"word{i}" for i in range(WORDS * 3))
    edit = {"command": "str_replace", "path": "/memories/long.txt", "old_str": "word0 ", "new_str": ""}
    with (
        closing(ContextNetworkMemoryTool(url=strict_api.base_url, api_key=caller.key)) as writer,
        closing(ContextNetworkMemoryTool(url=strict_api.base_url, api_key=caller.key)) as reader,
    ):
        assert answer(writer, create("/memories/long.txt", long)).startswith("File created")
        [note] = writer.client.iter_json("/v1/knowledge", tag="memories")
        assert note["content"] == " ".join(long.split()[:WORDS])
        # a tool that never wrote reads the excerpt as the file's own, not as a person's rewrite
        assert answer(reader, {"command": "view", "path": "/memories/long.txt"}).endswith(f"1\t{long}")
        assert answer(reader, edit).startswith("The memory file has been edited")
        assert files(writer) == {"/memories/long.txt": long.removeprefix("word0 ")}
        [note] = writer.client.iter_json("/v1/knowledge", tag="memories")
        assert note["content"] == " ".join(long.split()[1 : WORDS + 1])
        assert writer.limits.max_note_words == reader.limits.max_note_words == WORDS


async def test_callers_of_one_user_at_once(make_caller: MakeCaller, make_tool: MakeTool) -> None:
    person = await make_caller()
    tools = [
        make_tool(await make_caller(Role.AGENT, agent_id=f"claude-{i}", user_id=person.user_id))
        for i in range(3)
    ]
    # Twins: alike files at once, every one kept apart.
    text = "The user prefers short answers and metric units.\n"
    made = await asyncio.gather(
        *(asyncio.to_thread(t.call, create(f"/memories/prefs-{i}.md", text)) for i, t in enumerate(tools))
    )
    assert all(str(m).startswith("File created") for m in made)
    # One path at once: exactly one create wins, the others are told it exists.
    said = await asyncio.gather(
        *(asyncio.to_thread(answer, t, create("/memories/one.md", f"by {i}\n")) for i, t in enumerate(tools))
    )
    exists = "error: File /memories/one.md already exists"
    assert sorted(s.split(" at:")[0] if s.startswith("File") else s for s in said) == [
        "File created successfully", exists, exists,
    ]  # fmt: skip
    # Appends through one tool from several threads: none lost.
    tools[0].call(create("/memories/log.md", "log\n"))
    writers = [
        threading.Thread(
            target=tools[0].call,
            args=(
                {
                    "command": "insert",
                    "path": "/memories/log.md",
                    "insert_line": 1,
                    "insert_text": f"entry {i}",
                },
            ),
        )
        for i in range(8)
    ]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join()
    assert sorted(files(tools[1])["/memories/log.md"].splitlines()) == sorted(
        ["log", *(f"entry {i}" for i in range(8))]
    )
    assert {p for p in files(tools[2]) if p.startswith("/memories/prefs-")} == {
        f"/memories/prefs-{i}.md" for i in range(3)
    }


async def test_a_persons_correction_holds_and_the_desk_shows_the_model(
    api: ApiProcess, make_caller: MakeCaller, make_tool: MakeTool
) -> None:
    person = await make_caller()
    agent = await make_caller(Role.AGENT, agent_id="claude", user_id=person.user_id)
    started = await agent.http.post("/v1/sessions", json={"id": "claude-chat-1", "topic": "memory"})
    assert started.status_code == 201, started.text
    tool = make_tool(agent, session_id="claude-chat-1")
    tool.call(create("/memories/user.md", "Name: Sam\nDiet: vegetarian\n"))
    [note] = (await person.http.get("/v1/knowledge", params={"tag": file_tag("/memories/user.md")})).json()[
        "items"
    ]
    # The desk shows what the model wrote, and who: the agent, in its session.
    async with desk_of(api, person) as (desk, _):
        page = (await desk.get(f"/desk/notes/{note['id']}")).text
        assert "/memories/user.md" in page and "vegetarian" in page
        assert "claude" in (await desk.get("/desk/timeline")).text
    [created] = (await person.http.get("/v1/mutations", params={"targetId": note["id"]})).json()["items"]
    assert created["actor"]["agentId"] == "claude" and created["actor"]["sessionId"] == "claude-chat-1"
    # A person corrects the file at the desk's level (the note's content): the file reads as they wrote it.
    fixed = await person.http.patch(f"/v1/knowledge/{note['id']}", json={"content": "Name: Sam\nDiet: vegan"})
    assert fixed.status_code == 200, fixed.text
    assert "Diet: vegan" in str(tool.call({"command": "view", "path": "/memories/user.md"}))
    # The model's next edit waits for the person, and it is told so, as an error it reads.
    held = answer(
        tool,
        {"command": "str_replace", "path": "/memories/user.md", "old_str": "vegan", "new_str": "omnivore"},
    )
    assert held.startswith(
        "error: The change to /memories/user.md was not applied: a person corrected this memory"
    )
    assert "View the file again" in held
    assert files(tool)["/memories/user.md"] != "" and "omnivore" not in str(
        tool.call({"command": "view", "path": "/memories/user.md"})
    )
    for command in (
        {"command": "insert", "path": "/memories/user.md", "insert_line": 0, "insert_text": "x"},
        {"command": "rename", "old_path": "/memories/user.md", "new_path": "/memories/old.md"},
        {"command": "delete", "path": "/memories/user.md"},
    ):
        assert "waits as proposal" in answer(tool, command), command
    pending = (await person.http.get("/v1/proposals", params={"status": "pending"})).json()["items"]
    assert len([p for p in pending if p["targetId"] == note["id"]]) == 4


async def test_the_documented_example_runs(
    make_caller: MakeCaller, api: ApiProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = await make_caller(Role.AGENT, agent_id="claude")
    monkeypatch.setenv("CTXNET_API_URL", api.base_url)
    monkeypatch.setenv("CTXNET_API_KEY", agent.key)
    scope: dict[str, Any] = {"__name__": "example"}
    await asyncio.to_thread(exec, compile(CLAUDE_EXAMPLE, "docs/integrations.md", "exec"), scope)  # noqa: S102
    memory = scope["memory"]
    assert files(memory) == {"/memories/user.md": "Name: Sam\nDiet: vegan\n"}
    assert callable(scope["chat"]) and memory.to_dict() == {"type": "memory_20250818", "name": "memory"}
    memory.close()
