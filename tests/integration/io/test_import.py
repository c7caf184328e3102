"""`ctxnet import` against the real API and Neo4j: Markdown with front matter and wikilinks,
JSONL and CSV; edges to notes later in the import; long notes split; every rejected record
with file:line and reason; idempotent; a run killed mid-way and resumed ends with the same
graph as one that was not; a dry run writes nothing; two imports at once. Export and import
round trip: ``test_export.py``; decision records: ``test_import_decisions.py``."""

from __future__ import annotations

import asyncio
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from ctxnet.client import AsyncClient
from ctxnet.io.importer import run_import
from graph.core.principals import Role
from tests.integration.conftest import Caller, MakeCaller
from tests.support.servers import ApiProcess

LONG = "\n\n".join(
    f"## Part {p}\n\n" + " ".join(f"word{p}x{i}" for i in range(120)) for p in range(4)
)  # 4 sections of 120 words: more than one 300-word note


def write_vault(folder: Path) -> None:
    """A small Markdown vault: front matter, typed lists, wikilinks (one to a later file)."""
    (folder / "sub").mkdir(parents=True)
    (folder / "billing.md").write_text(
        "---\nid: billing\ntype: fact\ntags: [payments]\ndependsOn: [auth]\nconfidence: 0.9\n---\n"
        "# Billing service\n\nBilling calls the auth service for every charge. See [[Zebra gateway]].\n"
    )
    (folder / "auth.md").write_text("# Auth service\n\nAuth issues tokens that expire after an hour.\n")
    (folder / "sub" / "Zebra gateway.md").write_text("The zebra gateway forwards card payments.\n")
    (folder / "handbook.md").write_text(f"---\ntitle: Handbook\n---\n{LONG}\n")
    (folder / "opinion.md").write_text("---\ntype: opinion\n---\nNot a type we know.\n")
    (folder / "dangling.md").write_text("---\nrelatedTo: [nowhere]\n---\nPoints at a note nobody has.\n")


async def graph_of(caller: Caller) -> tuple[dict[str, Any], set[tuple[str, str, str]]]:
    """The user's notes (id → title, content, type, tags, sourceRef) and edges, as read back."""
    async with AsyncClient(str(caller.http.base_url), caller.key) as cn:
        notes = {
            n.id: (n.title, n.content, n.type.value, tuple(n.tags), n.source_ref)
            async for n in cn.iter_notes(limit=500)
        }
        edges: set[tuple[str, str, str]] = set()
        for note_id in notes:
            for edge in (await cn.request_json("GET", f"/v1/knowledge/{note_id}/connections"))["items"]:
                edges.add((edge["sourceId"], edge["type"], edge["targetId"]))
    return notes, edges


async def test_a_markdown_vault_comes_in_with_its_links_and_its_rejects(
    make_caller: MakeCaller, api: ApiProcess, tmp_path: Path
) -> None:
    alice = await make_caller(Role.HUMAN)
    vault = tmp_path / "vault"
    write_vault(vault)
    async with AsyncClient(api.base_url, alice.key) as cn:
        dry = await run_import(vault, cn, dry_run=True, progress=io.StringIO())
        assert (await graph_of(alice))[0] == {}  # a dry run writes nothing
        report = await run_import(vault, cn, progress=io.StringIO())
    for checked in (dry, report):
        rejected = {(r["where"], r["field"]) for r in checked.rejected}
        assert rejected == {("dangling.md:4", "targetId")}, checked.rejected
    assert report.created == 7 and report.split == ["handbook.md:4"]  # handbook: 2 parts of 240 words
    notes, edges = await graph_of(alice)
    assert notes["billing"][2:4] == ("fact", ("payments",))
    assert notes["billing"][4] == "billing.md:8"
    assert (
        notes["Zebra-gateway"][0] == "Zebra gateway" and notes["Zebra-gateway"][4] == "sub/Zebra gateway.md:1"
    )
    assert {n for n in notes if n.startswith("handbook")} == {"handbook", "handbook-2"}
    # a type of the vault's own is kept as a tag, never a reason to lose the note
    assert notes["opinion"][2:4] == ("concept", ("type:opinion",)), notes["opinion"]
    assert all(len(notes[n][1].split()) <= 300 for n in notes)
    assert {
        ("billing", "dependsOn", "auth"),
        ("billing", "relatedTo", "Zebra-gateway"),  # a wikilink to a file read after it
        ("handbook-2", "relatedTo", "handbook"),
    } <= edges
    # Again: nothing changes, and the report says so.
    async with AsyncClient(api.base_url, alice.key) as cn:
        again = await run_import(vault, cn, progress=io.StringIO())
    assert again.view()["changedNothing"] and again.created == 0 and again.existing == 7
    assert await graph_of(alice) == (notes, edges)


async def test_jsonl_and_csv_and_the_command_line(
    make_caller: MakeCaller, api: ApiProcess, tmp_path: Path
) -> None:
    alice = await make_caller(Role.HUMAN)
    lines = [
        {"id": "q1", "title": "Queue", "content": "Orders go through the queue.", "type": "fact"},
        {"sourceId": "q1", "type": "dependsOn", "targetId": "q2"},  # q2 comes later
        {
            "id": "q2",
            "title": "Broker",
            "content": "The broker is RabbitMQ.",
            "type": "fact",
            "sourceRef": "wiki:42",
        },
        {"id": "q3", "title": "Broken", "content": "x" * 30_000, "type": "fact"},
    ]
    (tmp_path / "notes.jsonl").write_text("\n".join(json.dumps(line) for line in lines) + "\n{not json\n")
    (tmp_path / "more.csv").write_text(
        "id,title,content,type,tags,confidence\n"
        "c1,Cache,The cache keeps prices for a minute.,fact,perf;cache,0.8\n"
        "c2,Bad,Missing a type,,,\n"
    )
    env = dict(os.environ) | {"CTXNET_API_URL": api.base_url, "CTXNET_API_KEY": alice.key}
    for source, code in (("notes.jsonl", 1), ("more.csv", 1)):
        done = subprocess.run(
            [sys.executable, "-m", "ctxnet", "import", str(tmp_path / source)],
            env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == code, done.stderr
        report = json.loads(done.stdout)
        assert report["rejected"], report
        # Not a terminal: progress comes as JSON lines.
        assert json.loads(done.stderr.strip().splitlines()[-1])["done"] >= 1
    notes, edges = await graph_of(alice)
    assert set(notes) == {"q1", "q2", "c1"}
    assert notes["q2"][4] == "wiki:42" and notes["q1"][4] == "notes.jsonl:1"
    assert notes["c1"][3] == ("perf", "cache") and notes["c1"][4] == "more.csv:2"
    assert edges == {("q1", "dependsOn", "q2")}
    bad = subprocess.run(
        [sys.executable, "-m", "ctxnet", "import", str(tmp_path / "notes.jsonl"), "--dry-run"],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    reasons = {r["where"]: r for r in json.loads(bad.stdout)["rejected"]}
    assert (
        set(reasons) == {"notes.jsonl:4", "notes.jsonl:5"} and reasons["notes.jsonl:4"]["field"] == "content"
    )


async def test_a_second_run_after_a_fold_changes_nothing(
    make_caller: MakeCaller, api: ApiProcess, tmp_path: Path
) -> None:
    """A note dedupe folds into its twin is folded once: its edges go to the twin (also a
    later import's), and a second run says it changed nothing (the API tells an earlier
    merge from a new one)."""
    alice = await make_caller(Role.HUMAN)
    rate = {"title": "Rate limit", "content": "Each API key may make 100 calls per minute.", "type": "fact"}
    lines = [
        {"id": "rl"} | rate,
        {"id": "rl-copy"} | rate,  # the same note under another id: folded into rl
        {"id": "gw", "title": "Gateway", "content": "The gateway counts calls per key.", "type": "fact"},
        {"sourceId": "gw", "type": "dependsOn", "targetId": "rl-copy"},
    ]
    source = tmp_path / "twins.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines))
    async with AsyncClient(api.base_url, alice.key) as cn:
        first = (await run_import(source, cn, progress=io.StringIO())).view()
        again = (await run_import(source, cn, progress=io.StringIO())).view()
    assert first["created"] == 2 and first["merged"] == 1 and first["folded"] == {"rl-copy": "rl"}, first
    assert first["edgesCreated"] == 1 and not first["changedNothing"]
    assert again["changedNothing"], again
    assert again["merged"] == 0 and again["existing"] == 3 and again["folded"] == {"rl-copy": "rl"}
    notes, edges = await graph_of(alice)
    assert set(notes) == {"rl", "gw"} and edges == {("gw", "dependsOn", "rl")}
    # A later import's edge to the folded id goes to the twin too.
    later = tmp_path / "later.jsonl"
    later.write_text(json.dumps({"sourceId": "rl-copy", "type": "relatedTo", "targetId": "gw"}) + "\n")
    async with AsyncClient(api.base_url, alice.key) as cn:
        report = (await run_import(later, cn, progress=io.StringIO())).view()
    assert not report["rejected"] and report["edgesCreated"] == 1 and report["folded"] == {"rl-copy": "rl"}
    assert (await graph_of(alice))[1] == {("gw", "dependsOn", "rl"), ("rl", "relatedTo", "gw")}


async def test_memory_records_at_fault_are_rejected_and_the_rest_goes_on(
    make_caller: MakeCaller, api: ApiProcess, tmp_path: Path
) -> None:
    alice = await make_caller(Role.HUMAN)
    lines = [
        {"record": "thread", "id": "t1", "topic": "Billing", "relatedThreads": []},
        {"record": "message", "threadId": "t1", "id": "m1", "role": "user", "content": "We use Postgres."},
        {"record": "message", "threadId": "nowhere", "id": "m9", "role": "user", "content": "Lost."},
        {"record": "message", "threadId": "t1", "id": "m2", "role": "robot", "content": "Bad role."},
        {"record": "insight", "threadId": "t1", "id": "i1", "messageId": "m1", "type": "fact",
         "content": "The team uses Postgres.", "confidence": 0.9, "knowledgeIds": []},
        {"record": "insight", "threadId": "t1", "id": "i2", "messageId": "m7", "type": "fact",
         "content": "No such message.", "confidence": 0.9},
        {"record": "session", "id": "s1", "agentId": "coder", "threadId": "t1", "status": "ended",
         "summary": "Talked storage.", "pendingActions": [{"id": "x", "text": "Back up", "position": 0,
         "status": "open", "sessionId": "s1"}]},
        {"record": "session", "id": "s2", "agentId": "coder", "threadId": "missing", "status": "open"},
        {"record": "session", "id": "s3", "status": "open"},
    ]  # fmt: skip
    source = tmp_path / "memory.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines))
    async with AsyncClient(api.base_url, alice.key) as cn:
        dry = (await run_import(source, cn, progress=io.StringIO(), dry_run=True)).view()
        assert dry["memoryRecords"] == 7 and [r["where"] for r in dry["rejected"]] == [
            "memory.jsonl:4",
            "memory.jsonl:9",
        ]
        assert (await cn.request_json("GET", "/v1/threads"))["items"] == []  # a dry run writes nothing
        report = (await run_import(source, cn, progress=io.StringIO())).view()
        rejected = {r["where"]: r for r in report["rejected"]}
        assert set(rejected) == {f"memory.jsonl:{n}" for n in (3, 4, 6, 8, 9)}, report["rejected"]
        assert (
            rejected["memory.jsonl:6"]["field"] == "messageId"
            and rejected["memory.jsonl:8"]["field"] == "threadId"
        )
        assert report["memory"] == {"threads": 1, "messages": 1, "insights": 1, "sessions": 1, "ended": 1}
        session = await cn.request_json("GET", "/v1/sessions/s1")
        assert session["status"] == "ended" and session["threadId"] == "t1"
        assert [a["text"] for a in session["pendingActions"]] == ["Back up"]
        again = (await run_import(source, cn, progress=io.StringIO())).view()
        assert again["changedNothing"] and again["memory"] == {}, again


def vectors_jsonl(path: Path, count: int) -> None:
    """``count`` notes with precomputed vectors (no embedding: a quick import) and a chain of edges."""
    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((count, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    with path.open("w") as out:
        for i in range(count):
            note = {"id": f"v{i}", "title": f"Vector note {i}", "content": f"Fact {i}.", "type": "fact",
                    "embedding": [round(float(x), 6) for x in vectors[i]], "dedupe": False}  # fmt: skip
            out.write(json.dumps(note) + "\n")
        for i in range(1, count):
            out.write(json.dumps({"sourceId": f"v{i}", "type": "relatedTo", "targetId": f"v{i - 1}"}) + "\n")


async def test_a_killed_import_resumes_to_the_same_graph(
    make_caller: MakeCaller, api: ApiProcess, tmp_path: Path
) -> None:
    source = tmp_path / "big.jsonl"
    vectors_jsonl(source, 1_200)
    whole, cut = await make_caller(Role.HUMAN), await make_caller(Role.HUMAN)
    # Batches of 20: 60 of notes and 60 of edges, so the kill lands well before the end.
    command = [sys.executable, "-m", "ctxnet", "import", str(source), "--batch-size", "20"]
    base = dict(os.environ) | {"CTXNET_API_URL": api.base_url}
    uninterrupted = subprocess.run(
        command, env=base | {"CTXNET_API_KEY": whole.key}, capture_output=True, text=True, timeout=300
    )
    assert uninterrupted.returncode == 0, uninterrupted.stderr
    source.with_name("big.jsonl.ctxnet-import.json").unlink()
    # Killed (SIGKILL: no chance to tidy up) once a few batches are done.
    state = source.with_name("big.jsonl.ctxnet-import.json")
    killed = subprocess.Popen(command, env=base | {"CTXNET_API_KEY": cut.key}, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)  # fmt: skip
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (
        state.exists() and len(json.loads(state.read_text())["done"]) >= 3
    ):
        await asyncio.sleep(0.01)
    killed.send_signal(signal.SIGKILL)
    killed.wait()
    done_before = len(json.loads(state.read_text())["done"])
    assert 3 <= done_before < 120  # cut off before the end
    resumed = subprocess.run(
        [*command, "--resume"],
        env=base | {"CTXNET_API_KEY": cut.key},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["skippedBatches"] == done_before
    assert await graph_of(cut) == await graph_of(whole)


async def test_two_imports_of_one_user_at_once(
    make_caller: MakeCaller, api: ApiProcess, tmp_path: Path
) -> None:
    alice = await make_caller(Role.HUMAN)
    vault = tmp_path / "vault"
    write_vault(vault)

    async def once(state: str) -> Any:
        async with AsyncClient(api.base_url, alice.key) as cn:
            return await run_import(vault, cn, progress=io.StringIO(), state=tmp_path / state)

    first, second = await asyncio.gather(once("a.json"), once("b.json"))
    assert first.created + second.created == 7  # each note made once, whoever came first
    notes, edges = await graph_of(alice)
    assert len(notes) == 7 and ("billing", "dependsOn", "auth") in edges


async def test_an_agents_import_of_an_edge_a_person_removed_is_reported_proposed(
    make_caller: MakeCaller, api: ApiProcess, tmp_path: Path
) -> None:
    """An edge a person removed comes back through an agent's import as the API answers it,
    a proposal for the person, and the report says so: not created, not already there."""
    alice = await make_caller(Role.HUMAN)
    agent = await make_caller(Role.AGENT, agent_id="importer", user_id=alice.user_id)
    for note_id in ("ia", "ib", "ic"):
        body = {"id": note_id, "title": note_id, "content": f"The note {note_id}.", "type": "fact"}
        made = await alice.http.post("/v1/knowledge", json=body | {"dedupe": False})
        assert made.status_code == 201, made.text
    edge = {"type": "dependsOn", "targetId": "ib"}
    linked = await alice.http.post("/v1/knowledge/ia/connections", json=edge)
    assert linked.status_code == 201, linked.text
    removed = await alice.http.delete(
        "/v1/knowledge/ia/connections/dependsOn/ib", headers={"X-Change-Reason": "ia no longer needs ib"}
    )
    assert removed.status_code == 204, removed.text
    source = tmp_path / "edges.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in (
        {"sourceId": "ia", "type": "dependsOn", "targetId": "ib"},  # removed by alice: held
        {"sourceId": "ia", "type": "relatedTo", "targetId": "ic"},  # new: made
    )))  # fmt: skip
    async with AsyncClient(api.base_url, agent.key) as cn:
        report = (await run_import(source, cn, progress=io.StringIO())).view()
    assert report["edgesCreated"] == 1 and report["proposed"] == 1 and report["edgesExisting"] == 0, report
    assert (await graph_of(alice))[1] == {("ia", "relatedTo", "ic")}
