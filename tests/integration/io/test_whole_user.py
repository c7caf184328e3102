"""A whole user out and back (``ctxnet export --all``, ``ctxnet import``), over HTTP against the
real Neo4j: a user holding every kind comes back the same, node by node and property by
property as Neo4j holds them, but for exactly what docs/import.md lists; and every way in
that must be refused is."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from ctxnet.client import AsyncClient, Conflict, Forbidden
from ctxnet.io.whole import ExportFileError, export_all, restore
from ctxnet.wire.base import compact_json
from graph.core.db import Database
from graph.core.principals import Role, Scope
from graph.core.users import forget_user
from graph.io.format import KINDS
from tests.integration.conftest import Caller, MakeCaller, inspect
from tests.integration.io.whole_user import ok, remember_everything, subgraph
from tests.support.servers import ApiProcess


async def exported(api: ApiProcess, caller: Caller, path: Path) -> dict[str, Any]:
    async with AsyncClient(api.base_url, caller.key) as cn:
        with path.open("w", encoding="utf-8") as out:
            return await export_all(cn, out)


async def restored(api: ApiProcess, caller: Caller, path: Path, **options: Any) -> dict[str, Any]:
    async with AsyncClient(api.base_url, caller.key, timeout=300) as cn:
        return await restore(cn, path, **options)


def ctxnet(api: ApiProcess, caller: Caller, *args: str) -> subprocess.CompletedProcess[str]:
    """``ctxnet ARGS`` as a person runs it, with the caller's key; it must succeed."""
    command = [sys.executable, "-m", "ctxnet", *args, "--url", api.base_url, "--key", caller.key]
    run = subprocess.run(
        command, capture_output=True, text=True, env=os.environ | {"NO_COLOR": "1"}, check=False
    )  # noqa: S603
    assert run.returncode == 0, run.stderr[-2000:]
    return run


async def small_user(caller: Caller, word: str = "tea") -> None:
    """A few notes, an edge and a thread: enough for the refusals."""
    for n in range(3):
        note = {
            "id": f"n{n}",
            "title": f"Note {n}",
            "content": f"{word} fact {n}.",
            "type": "fact",
            "dedupe": False,
        }
        await ok(await caller.http.post("/v1/knowledge", json=note))
    await ok(
        await caller.http.post("/v1/knowledge/n0/connections", json={"type": "relatedTo", "targetId": "n1"})
    )
    await ok(await caller.http.post("/v1/threads", json={"id": "t1", "topic": word}))
    said = {"messages": [{"role": "user", "content": f"I like {word}."}]}
    await ok(await caller.http.post("/v1/threads/t1/messages", json=said))


async def payloads_of(caller: Caller, thread_id: str) -> list[str]:
    """Every payload of the caller's notes (by id) and of a thread's messages, as compact JSON."""
    notes = (await ok(await caller.http.get("/v1/knowledge", params={"limit": 500})))["items"]
    said = (await ok(await caller.http.get(f"/v1/threads/{thread_id}/messages")))["items"]
    seen = [compact_json(n["data"]) for n in sorted(notes, key=lambda n: n["id"]) if "data" in n]
    return seen + [compact_json(m["data"]) for m in said if "data" in m]


def same_but_the_restore_entry(a: dict[str, Any], b: dict[str, Any]) -> None:
    """Two users' subgraphs are the same but for the restore's journal entry (no mixture)."""
    assert b["tenant"]["seq"] == a["tenant"]["seq"] + 1
    assert b["relationships"] == a["relationships"]
    assert {k: v for k, v in b["nodes"].items() if k != "Mutation"} == {
        k: v for k, v in a["nodes"].items() if k != "Mutation"
    }
    assert not a["nodes"]["Mutation"] - b["nodes"]["Mutation"]
    assert sum(b["nodes"]["Mutation"].values()) == sum(a["nodes"]["Mutation"].values()) + 1


async def quiet(db: Database, caller: Caller) -> None:
    """Wait until every thread's gist is made (the background refresh writes to the user)."""
    for _ in range(400):  # 20 s at most
        [row] = await inspect(
            db,
            "MATCH (t:Thread) WHERE t.userId = $user AND coalesce(t.embeddedSeq, -1) <> t.messageCount "
            "RETURN count(t) AS behind, collect([t.id, t.embeddedSeq, t.messageCount]) AS which",
            user=caller.user_id,
        )
        if row["behind"] == 0:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"the threads' gists were not refreshed in 20 s: {row['which']}")


async def empty(db: Database, caller: Caller) -> bool:
    graph = await subgraph(db, caller.user_id)
    return not graph["nodes"] and not graph["relationships"]


@pytest.mark.smoke
async def test_a_whole_user_comes_back_the_same(
    make_caller: MakeCaller, db: Database, api: ApiProcess, tmp_path: Path
) -> None:
    alice, mallory, bob = await make_caller(), await make_caller(), await make_caller()
    theirs = f"zq{uuid.uuid4().hex[:10]}"
    await small_user(mallory, theirs)
    ids = await remember_everything(alice, make_caller, f"zq{uuid.uuid4().hex[:10]}")
    await quiet(db, alice)  # the threads' gists are refreshed in the background: once they are
    path = tmp_path / "alice.jsonl"
    counts = json.loads(
        ctxnet(api, alice, "export", "--all", "-o", str(path)).stderr.strip().splitlines()[-1]
    )
    text = path.read_text(encoding="utf-8")
    assert theirs not in text and mallory.user_id not in text  # nothing of another user's
    header = json.loads(text.splitlines()[0])
    assert header["format"] == 1 and header["userId"] == alice.user_id and counts["records"] > 100
    for kind in KINDS:  # every kind of node is in the file
        assert header["nodes"].get(kind), (kind, header["nodes"])

    report = json.loads(ctxnet(api, bob, "import", str(path)).stdout)
    assert report["userIdRewritten"] == {
        "from": alice.user_id,
        "to": bob.user_id,
        "values": report["userIdRewritten"]["values"],
    }
    assert report["userIdRewritten"]["values"] > 0  # the profile's journal entries name their user

    a, b = await subgraph(db, alice.user_id), await subgraph(db, bob.user_id)
    assert a["tenant"]["seq"] == header["seq"], "alice wrote after the export: the comparison would not hold"
    assert not any("another user's" in r for r in a["relationships"]), "an edge to another user's node"
    # Every relationship the same: type, both ends (whole nodes), every property.
    assert b["relationships"] == a["relationships"]
    # Every node the same, label by label and property by property (with its Neo4j type),
    # but the journal: the restored one, then the restore's own entry.
    assert b["nodes"].keys() == a["nodes"].keys()
    for kind, nodes in a["nodes"].items():
        if kind != "Mutation":
            assert b["nodes"][kind] == nodes, kind
    extra = b["nodes"]["Mutation"] - a["nodes"]["Mutation"]
    assert not a["nodes"]["Mutation"] - b["nodes"]["Mutation"], "a journal entry lost or changed"
    [(entry, times)] = extra.items()
    assert times == 1
    [_, props] = json.loads(entry)
    assert props["op"] == ["STRING NOT NULL", "user.restore"] and props["targetId"] == "<user>"
    assert props["seq"] == ["INTEGER NOT NULL", a["tenant"]["seq"] + 1] and props["role"][1] == "human"
    # The Tenant node: the sequence goes on after the restore's entry; its counters kept.
    assert b["tenant"]["seq"] == a["tenant"]["seq"] + 1 and b["tenant"]["notes"] == a["tenant"]["notes"]
    assert {k for k in b["tenant"] if k.startswith("restor")} == set()
    kept = set(a["tenant"]) - {"lockedAt", "seq", "forgottenAt", "userId"}
    assert {k: b["tenant"].get(k) for k in kept} == {k: a["tenant"][k] for k in kept}

    # Every payload reads back exactly as alice's does (key order and number types too).
    payloads = await payloads_of(alice, ids["thread2"])
    assert await payloads_of(bob, ids["thread2"]) == payloads and len(payloads) > 10, payloads

    # The restored user works: the journal goes on, search finds the notes.
    journal = await ok(await bob.http.get("/v1/mutations", params={"limit": 2}))
    assert journal["items"][0]["op"] == "user.restore"
    note = await ok(
        await bob.http.post(
            "/v1/knowledge", json={"title": "After", "content": "Written after.", "type": "fact"}
        )
    )
    assert note["node"]["id"]
    journal = await ok(await bob.http.get("/v1/mutations", params={"limit": 1}))
    assert journal["items"][0]["seq"] == a["tenant"]["seq"] + 2


async def test_what_must_be_refused_is(
    make_caller: MakeCaller, db: Database, api: ApiProcess, tmp_path: Path
) -> None:
    alice = await make_caller()
    await small_user(alice)
    path = tmp_path / "alice.jsonl"
    await exported(api, alice, path)
    # A person's action: an agent's key, and a scoped key, get 403 on every route.
    agent = await make_caller(Role.AGENT, agent_id="helper", user_id=alice.user_id)
    scoped = await make_caller(Role.HUMAN, user_id=alice.user_id, scope=Scope(tags=("proj",)))
    for caller in (agent, scoped):
        assert (await caller.http.get("/v1/export/all")).status_code == 403
        assert (await caller.http.get("/v1/restore")).status_code == 403
        assert (await caller.http.delete("/v1/restore")).status_code == 403
        with pytest.raises(Forbidden):
            await restored(api, caller, path)
    # Into a user who holds anything: 409 naming what.
    busy = await make_caller()
    await ok(await busy.http.post("/v1/goals", json={"title": "Mine"}))
    with pytest.raises(Conflict) as refused:
        await restored(api, busy, path)
    assert refused.value.field == "userId" and "1 Goal" in refused.value.message
    # Another format: 422 naming the field.
    lines = path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0]) | {"format": 2}
    answer = await busy.http.post("/v1/restore", json={"header": header, "sha256": "0" * 64, "records": 1})
    assert answer.status_code == 422 and answer.json()["error"]["field"] == "header.format", answer.text
    # A file cut short, changed, or broken: refused with the line, nothing written.
    bob = await make_caller()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:-3]) + "\n", encoding="utf-8")
    changed = tmp_path / "changed.jsonl"
    changed.write_text(
        "\n".join([*lines[:2], lines[2].replace("fact", "fiction"), *lines[3:]]) + "\n", encoding="utf-8"
    )
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join([*lines[:3], lines[3][:40], *lines[4:]]) + "\n", encoding="utf-8")
    for bad, said in ((cut, f"line {len(lines) - 2}: the file ends before its end record"),
                      (changed, f"line {len(lines)}: the end record's count or checksum does not match"),
                      (broken, "line 4: not JSON")):  # fmt: skip
        with pytest.raises(ExportFileError) as why:
            await restored(api, bob, bad)
        assert str(why.value).startswith(said), str(why.value)
    assert await empty(db, bob)
    command = [sys.executable, "-m", "ctxnet", "import", str(broken), "--url", api.base_url, "--key", bob.key]
    run = subprocess.run(
        command, capture_output=True, text=True, env=os.environ | {"NO_COLOR": "1"}, check=False
    )  # noqa: S603
    assert run.returncode != 0 and "line 4: not JSON" in run.stderr, run.stderr
    checked = json.loads(ctxnet(api, bob, "import", str(path), "--dry-run").stdout)  # checks, writes nothing
    assert checked["dryRun"] and checked["records"] == len(lines) - 2 and checked["from"] == alice.user_id
    assert await empty(db, bob)


async def test_two_imports_into_one_user_at_once_one_wins(
    make_caller: MakeCaller, db: Database, api: ApiProcess, tmp_path: Path
) -> None:
    alice, bob = await make_caller(), await make_caller()
    await small_user(alice)
    await quiet(db, alice)
    path = tmp_path / "alice.jsonl"
    await exported(api, alice, path)
    results = await asyncio.gather(restored(api, bob, path), restored(api, bob, path), return_exceptions=True)
    won = [r for r in results if isinstance(r, dict)]
    lost = [r for r in results if not isinstance(r, dict)]
    assert len(won) == 1 and len(lost) == 1, results
    assert isinstance(lost[0], Conflict | ExportFileError) and "--resume" in str(lost[0]), lost[0]
    same_but_the_restore_entry(await subgraph(db, alice.user_id), await subgraph(db, bob.user_id))


async def test_a_killed_restore_is_refused_until_resumed_or_discarded(
    make_caller: MakeCaller, db: Database, api: ApiProcess, tmp_path: Path
) -> None:
    alice, bob = await make_caller(), await make_caller()
    await small_user(alice)
    await quiet(db, alice)
    path = tmp_path / "alice.jsonl"
    await exported(api, alice, path)
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    header, records, end = lines[0], lines[1:-1], lines[-1]

    async def cut_short() -> str:
        """Begin and write the first three records, as a run killed then would have."""
        body = {"header": header, "sha256": end["sha256"], "records": len(records)}
        begun = await ok(await bob.http.post("/v1/restore", json=body), 201)
        batch = {"restoreId": begun["restoreId"], "offset": 0, "records": records[:3]}
        assert (await ok(await bob.http.post("/v1/restore/batches", json=batch)))["recordsDone"] == 3
        again = await ok(await bob.http.post("/v1/restore/batches", json=batch))  # sent twice: written once
        assert again["recordsDone"] == 3
        skipped = {"restoreId": begun["restoreId"], "offset": 5, "records": records[5:6]}
        gap = await bob.http.post("/v1/restore/batches", json=skipped)
        assert gap.status_code == 409 and gap.json()["error"]["field"] == "offset"
        return str(begun["restoreId"])

    restore_id = await cut_short()
    # Every other write of the user is refused, saying why and what to do; so is an export.
    note = await bob.http.post("/v1/knowledge", json={"title": "Mine", "content": "Mine.", "type": "fact"})
    assert note.status_code == 409 and "--resume" in note.json()["error"]["message"], note.text
    assert (await bob.http.get("/v1/export/all")).status_code == 409
    early = await bob.http.post("/v1/restore/finish", json={"restoreId": restore_id})
    assert early.status_code == 409 and "3 of" in early.json()["error"]["message"]
    with pytest.raises(ExportFileError, match="under way"):
        await restored(api, bob, path)  # without --resume
    # Discarded: the user is empty again and takes writes, and a restore.
    discarded = await ok(await bob.http.delete("/v1/restore"))
    assert discarded["discarded"] == 3 and await empty(db, bob)
    assert not (await ok(await bob.http.get("/v1/restore")))["restoring"]
    await cut_short()
    assert (await bob.http.post("/v1/catch-up", json={})).status_code == 200  # a read: it records no access
    report = await restored(api, bob, path, resume=True)
    assert report["resumedAt"] == 3
    same_but_the_restore_entry(await subgraph(db, alice.user_id), await subgraph(db, bob.user_id))


async def test_forgetting_a_user_ends_a_restore_under_way(
    make_caller: MakeCaller, db: Database, api: ApiProcess, tmp_path: Path
) -> None:
    alice, carol = await make_caller(), await make_caller()
    await small_user(alice)
    path = tmp_path / "alice.jsonl"
    await exported(api, alice, path)
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    body = {"header": lines[0], "sha256": lines[-1]["sha256"], "records": len(lines) - 2}
    begun = await ok(await carol.http.post("/v1/restore", json=body), 201)
    batch = {"restoreId": begun["restoreId"], "offset": 0, "records": lines[1:3]}
    await ok(await carol.http.post("/v1/restore/batches", json=batch))
    await forget_user(db, carol.user_id)  # goes through the gate while the restore holds the user
    [tenant] = await inspect(
        db, "MATCH (t:Tenant {userId: $user}) RETURN properties(t) AS p", user=carol.user_id
    )
    assert tenant["p"]["forgottenAt"] and not {k for k in tenant["p"] if k.startswith("restor")}
    assert await empty(db, carol)
