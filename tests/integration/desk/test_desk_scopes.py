"""The scope sweep drives the desk: a person's key scoped to part of alice's memory signs in to
the desk and opens every page and submits every form of it (walked from the app's desk
routes by tests/support/desk_sweep.py, each aimed at alice's things outside the scope), and
gets no more than the API gives that key: nothing outside the scope on any page, every form
on an outside thing refused (the forms sent at once, beside the API's undo of the same
delete), and alice's memory outside the scope unchanged."""

from __future__ import annotations

import asyncio
import hashlib
import re
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx

from api.app import create_app
from graph.core.principals import Scope
from tests.integration.conftest import Caller, MakeCaller
from tests.support.desk_sweep import EXEMPT, DeskCall, desk_calls, desk_routes
from tests.support.servers import ApiProcess
from tests.support.sweep import every_item, seed_everything, state_outside

#: Where a page links a note (``/desk/notes/<id>``, with the view's query or a fragment after it).
#: The fields a desk edit form keeps as the page showed them.
EDITED = ("title", "content")
NOTE_LINK = re.compile(r"/desk/notes/([A-Za-z0-9][A-Za-z0-9._@:-]*)")
#: A journal entry as the timeline and a note's history show it; a decision on the project page.
ENTRY = re.compile(r'id="m-([0-9a-f]+)"')
DECISION = re.compile(r'data-decision="([^"]*)"')


def _csrf(html: str) -> str:
    match = re.search(r'name="csrf" value="([0-9a-f]{64})"', html)
    assert match is not None, html[:500]
    return match.group(1)


@asynccontextmanager
async def signed_in(api: ApiProcess, caller: Caller) -> AsyncIterator[tuple[httpx.AsyncClient, str]]:
    """A browser without JavaScript signed in to the desk with ``caller``'s key, and its CSRF token."""
    async with httpx.AsyncClient(base_url=api.base_url, timeout=60) as client:
        form = await client.get("/desk/sign-in")
        signed = await client.post("/desk/sign-in", data={"key": caller.key, "csrf": _csrf(form.text)})
        assert signed.status_code == 303, signed.text
        inbox = await client.get("/desk/inbox")
        assert inbox.status_code == 200, inbox.text[:500]
        yield client, _csrf(inbox.text)


def note(note_id: str, *tags: str, content: str | None = None) -> dict[str, Any]:
    return {"id": note_id, "title": note_id, "content": content or f"About {note_id}.", "type": "fact",
            "tags": list(tags), "dedupe": False}  # fmt: skip


async def _seed(alice: Caller, make_caller: MakeCaller, token: str) -> dict[str, str]:
    """alice's memory: one of everything outside the scope (each carrying ``token``), two notes
    inside it, and the review's probes: a decision alice records, and a note outside the scope
    alice deleted (``deleted``, its delete ``deleted_mutation``); and what an edit form keeps
    of the outside note's title and content as a page showed them (their sha256)."""
    ids = await seed_everything(alice, make_caller, token, claim=f"The {token} relay listens on 7000.")
    for made in (note("inside-1", "proj"), note("inside-2", "proj")):
        assert (await alice.http.post("/v1/knowledge", json=made)).status_code == 201
    tag = uuid.uuid4().hex[:6]
    secret = {
        "id": f"secret-adr-{tag}",
        "title": f"{token} SECRET acquisition of Initech",
        "context": "Board only.",
        "decision": f"We acquire Initech in Q3 ({token}).",
    }
    assert (await alice.http.post("/v1/decisions", json=secret)).status_code == 201
    ids["deleted"] = f"gone-{tag}"
    gone = note(ids["deleted"], "hr", content=f"{token} salary bands for the hr team.")
    assert (await alice.http.post("/v1/knowledge", json=gone)).status_code == 201
    assert (await alice.http.delete(f"/v1/knowledge/{ids['deleted']}")).status_code == 204
    [deleted] = (
        await alice.http.get("/v1/mutations", params={"targetId": ids["deleted"], "limit": 1})
    ).json()["items"]
    assert deleted["op"] == "note.delete"
    ids["deleted_mutation"] = deleted["id"]
    outside = (await alice.http.get(f"/v1/knowledge/{ids['note']}")).json()
    shown = {
        f"{name}_was": hashlib.sha256(outside[name].encode()).hexdigest() for name in ("title", "content")
    }
    return ids | shown | {"query": "Secret: I prefer tea"}  # the outside notes' words, not the token


async def test_a_scoped_persons_desk_gets_no_more_than_the_api_gives_its_key(
    api: ApiProcess, make_caller: MakeCaller
) -> None:
    alice = await make_caller()
    token = f"zd{uuid.uuid4().hex[:10]}"
    ids = await _seed(alice, make_caller, token)
    scoped = await make_caller(user_id=alice.user_id, scope=Scope(tags=("proj",)))
    whole = await state_outside(alice, ids, ("proj",), agent="no agent of this sweep")

    # What the API gives this key: its notes; 403 for decisions; no undo of the outside delete.
    visible = {n["id"] for n in await every_item(scoped, "/v1/knowledge")}
    assert visible == {"inside-1", "inside-2"}
    entries = {m["id"] for m in await every_item(scoped, "/v1/mutations")}
    assert (await scoped.http.get("/v1/decisions")).status_code == 403
    undo = await scoped.http.post(f"/v1/mutations/{ids['deleted_mutation']}/undo")
    assert undo.status_code in (403, 404), undo.text

    app = create_app()
    assert {(m, p) for m, p, _ in desk_routes(app)}, "no desk routes found"
    async with signed_in(api, scoped) as (client, csrf):
        calls, unplaced = desk_calls(app, ids | {"csrf": csrf})
        assert not unplaced, (
            f"desk routes the sweep cannot place (teach tests/support/desk_sweep.py): {unplaced}"
        )
        linked: set[str] = set()
        shown_entries: set[str] = set()
        answered: dict[tuple[str, str], set[int]] = {}

        async def send(call: DeskCall) -> httpx.Response:
            return await client.request(call.method, call.url, params=call.query, data=call.form)

        pages = [c for c in calls if c.method == "GET"]
        forms = [c for c in calls if c.method != "GET"]
        done = [(call, await send(call)) for call in pages]
        # Every form at once, beside the API's undo of the same delete by the same key.
        undone = f"/v1/mutations/{ids['deleted_mutation']}/undo"
        sent = await asyncio.gather(*map(send, forms), *(scoped.http.post(undone) for _ in range(3)))
        assert all(a.status_code in (403, 404) for a in sent[len(forms) :]), [a.text for a in sent]
        done += list(zip(forms, sent[: len(forms)], strict=True))
        for call, answer in done:
            where = (call.method, call.url, call.query, call.form)
            answered.setdefault((call.method, call.template), set()).add(answer.status_code)
            assert answer.status_code < 500, (where, answer.text[:500])
            assert token not in answer.text, ("outside the scope on the desk", where, answer.text[:500])
            shown = set(NOTE_LINK.findall(answer.text))
            assert shown <= visible, ("the desk links notes the API does not give this key", where, shown)
            linked |= shown
            journaled = set(ENTRY.findall(answer.text))
            assert journaled <= entries, ("the desk shows entries the API does not give this key", where)
            assert not DECISION.findall(answer.text), (
                "the desk shows decisions the API refuses this key",
                where,
            )
            shown_entries |= journaled
            if call.method == "POST":
                assert answer.status_code in (403, 404), (
                    "a form reached outside the scope",
                    where,
                    answer.text,
                )
            else:
                assert answer.status_code in (200, 303, 403, 404), (where, answer.text[:500])
        # The review's probes: the project page and the restore of the outside delete.
        assert answered[("GET", "/desk/project")] == {403}
        assert answered[("POST", "/desk/notes/{note_id}/restore")] <= {403, 404}
        assert (await client.get("/desk/timeline")).status_code == 200  # still signed in

    # Every desk route was called, and the pages show what is inside the scope.
    every = {(m, p) for m, p, _ in desk_routes(app)}
    assert set(answered) == every, every - set(answered)
    assert len(every) + len(EXEMPT) >= 10
    assert linked & visible, "no page linked a note inside the scope"
    assert shown_entries, "no page showed the journal inside the scope"
    # Nothing outside the scope changed; the deleted note stays deleted.
    assert (await alice.http.get(f"/v1/knowledge/{ids['deleted']}")).status_code == 404
    after = await state_outside(alice, ids, ("proj",), agent="no agent of this sweep")
    assert after.keys() == whole.keys(), set(after) ^ set(whole)
    for key, was in whole.items():
        assert after[key] == was, ("the desk changed what lies outside the scope", key, was, after[key])
