"""The desk over plain HTTP, as a browser without JavaScript would use it: the sign-in's own
CSRF, a scoped person's key, a note archived, restored, deleted and brought back, and the
headers and files every page relies on."""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx

from graph.core.db import Database
from graph.core.principals import ApiKeys, Role, Scope
from tests.integration.conftest import Caller, MakeCaller, correct_and_propose
from tests.support.servers import ApiProcess


def token_of(html: str) -> str:
    match = re.search(r'name="csrf" value="([0-9a-f]{64})"', html)
    assert match is not None, html[:500]
    return match.group(1)


@asynccontextmanager
async def desk_of(api: ApiProcess, caller: Caller) -> AsyncIterator[tuple[httpx.AsyncClient, str]]:
    """A cookie-keeping client signed in as ``caller``, and its session's CSRF token."""
    async with httpx.AsyncClient(base_url=api.base_url, timeout=30) as client:
        form = await client.get("/desk/sign-in")
        signed = await client.post("/desk/sign-in", data={"key": caller.key, "csrf": token_of(form.text)})
        assert signed.status_code == 303 and signed.headers["location"] == "/desk/inbox", signed.text
        inbox = await client.get("/desk/inbox")
        assert inbox.status_code == 200
        yield client, token_of(inbox.text)


async def test_sign_in_needs_its_form_and_a_persons_key(api: ApiProcess, make_caller: MakeCaller) -> None:
    person = await make_caller()
    agent = await make_caller(Role.AGENT, agent_id="scribe", user_id=person.user_id)
    # Failed sign-ins count against their client: from an address of this test's own.
    alone = {"X-Forwarded-For": f"10.1.{uuid.uuid4().int % 256}.{uuid.uuid4().int % 254 + 1}"}
    async with httpx.AsyncClient(base_url=api.base_url, timeout=30, headers=alone) as client:
        assert (await client.get("/desk/inbox")).headers["location"] == "/desk/sign-in"
        # A post from elsewhere (no form cookie, no token) signs no one in.
        refused = await client.post("/desk/sign-in", data={"key": person.key, "csrf": "0" * 64})
        assert refused.status_code == 403 and "desk_session" not in client.cookies
        form = await client.get("/desk/sign-in")
        cookie = form.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=strict" in cookie and "path=/desk" in cookie
        wrong = await client.post("/desk/sign-in", data={"key": "ctxn_nothing", "csrf": token_of(form.text)})
        assert wrong.status_code == 401
        form = await client.get("/desk/sign-in")
        as_agent = await client.post("/desk/sign-in", data={"key": agent.key, "csrf": token_of(form.text)})
        assert as_agent.status_code == 403 and "desk_session" not in client.cookies
    # The session is not the key, and is not a key a person signs in with.
    async with desk_of(api, person) as (client, _):
        secret = client.cookies["desk_session"]
        assert secret != person.key
        async with httpx.AsyncClient(base_url=api.base_url, timeout=30) as other:
            form = await other.get("/desk/sign-in")
            again = await other.post("/desk/sign-in", data={"key": secret, "csrf": token_of(form.text)})
            assert again.status_code == 403
            # Nor is it a key to the API: the cookie's secret opens the desk, nothing else.
            api_call = await other.get("/v1/me", headers={"Authorization": f"Bearer {secret}"})
            assert api_call.status_code == 401 and "desk" in api_call.text, api_call.text


async def test_a_scoped_persons_desk_reaches_only_its_scope(api: ApiProcess, make_caller: MakeCaller) -> None:
    person = await make_caller()
    t = uuid.uuid4().hex[:6]
    for note_id, tags in ((f"in-{t}", ["billing"]), (f"out-{t}", ["hr"])):
        body = {"id": note_id, "title": note_id, "content": f"About {note_id}.", "type": "fact", "tags": tags}
        assert (await person.http.post("/v1/knowledge", json={**body, "dedupe": False})).status_code == 201
    scoped = await make_caller(user_id=person.user_id, scope=Scope(tags=("billing",)))
    async with desk_of(api, scoped) as (client, csrf):
        assert (await client.get(f"/desk/notes/in-{t}")).status_code == 200
        assert (await client.get(f"/desk/notes/out-{t}")).status_code == 404
        found = await client.get("/desk/search", params={"q": f"About out-{t}", "layer": "knowledge"})
        assert f"/desk/notes/in-{t}" in found.text and f"/desk/notes/out-{t}" not in found.text
        timeline = await client.get("/desk/timeline")
        assert f"in-{t}" in timeline.text and f"out-{t}" not in timeline.text
        inbox = await client.get("/desk/inbox")
        assert "outside any scope" in inbox.text
        refused = await client.post(f"/desk/notes/out-{t}/delete", data={"csrf": csrf})
        assert refused.status_code == 404
    assert (await person.http.get(f"/v1/knowledge/out-{t}")).status_code == 200


async def test_each_proposal_is_shown_against_what_stands_in_its_own_note(
    api: ApiProcess, make_caller: MakeCaller
) -> None:
    person = await make_caller()
    agent = await make_caller(Role.AGENT, agent_id="scribe", user_id=person.user_id)
    t = uuid.uuid4().hex[:6]
    texts = {
        "kept": "Billing retries a failed charge three times.",
        "gone": "The staging cluster is rebuilt every Sunday night.",
        "third": "Support answers tickets in English and Dutch.",
    }
    held = {
        n: (await correct_and_propose(person, agent, f"{n}-{t}", text))["proposal"]
        for n, text in texts.items()
    }
    assert (await person.http.delete(f"/v1/knowledge/gone-{t}")).status_code == 204
    async with desk_of(api, person) as (client, _):
        inbox = (await client.get("/desk/inbox")).text
    assert "3 proposals" in inbox
    cards = {n: re.search(rf'id="proposal-{p}"(.*?)</li>', inbox, re.S) for n, p in held.items()}
    assert all(cards.values()), inbox[:2000]
    # What stands in each note is the person's correction, read for all of them at once; the
    # deleted note has nothing standing, and no other card borrows another note's text.
    for name in ("kept", "third"):
        card = cards[name].group(1)  # type: ignore[union-attr]
        assert "Corrected:" in card and texts[name].split()[1] in card and f"/desk/notes/{name}-{t}" in card
    gone = cards["gone"].group(1)  # type: ignore[union-attr]
    assert "Corrected:" not in gone and "/desk/notes/" not in gone


async def test_a_note_archived_restored_deleted_and_brought_back(
    api: ApiProcess, make_caller: MakeCaller
) -> None:
    person = await make_caller()
    agent = await make_caller(Role.AGENT, agent_id="scribe", user_id=person.user_id)
    note_id = f"life-{uuid.uuid4().hex[:6]}"
    session = (await agent.http.post("/v1/sessions", json={})).json()["session"]["id"]
    body = {"id": note_id, "title": "Life", "content": "A note's life.", "type": "fact", "dedupe": False}
    made = await agent.http.post("/v1/knowledge", json=body, headers={"X-Session-ID": session})
    assert made.status_code == 201
    async with desk_of(api, person) as (client, csrf):
        # The agent's write names its session, which links to the session's page.
        for path in ("/desk/timeline", f"/desk/notes/{note_id}", f"/desk/sessions?session={session}"):
            page = await client.get(path)
            assert page.status_code == 200 and f"session={session}" in page.text, path
        archived = await client.post(
            f"/desk/notes/{note_id}/status", data={"csrf": csrf, "status": "archived"}
        )
        assert archived.status_code == 303
        assert (await person.http.get(f"/v1/knowledge/{note_id}")).json()["status"] == "archived"
        await client.post(f"/desk/notes/{note_id}/status", data={"csrf": csrf, "status": "active"})
        assert (await person.http.get(f"/v1/knowledge/{note_id}")).json()["status"] == "active"
        assert (await client.post(f"/desk/notes/{note_id}/delete", data={"csrf": csrf})).status_code == 303
        assert (await person.http.get(f"/v1/knowledge/{note_id}")).status_code == 404
        page = await client.get(f"/desk/notes/{note_id}")
        assert page.status_code == 200 and "was deleted" in page.text
        deleted = re.search(r'name="mutation" value="([^"]+)"', page.text)
        assert deleted is not None
        back = await client.post(
            f"/desk/notes/{note_id}/restore", data={"csrf": csrf, "mutation": deleted.group(1)}
        )
        assert back.status_code == 303
        assert (await person.http.get(f"/v1/knowledge/{note_id}")).json()["content"] == "A note's life."
        # Each step went through the journal, as the person's.
        history = (await person.http.get("/v1/mutations", params={"targetId": note_id})).json()["items"]
        assert {m["actor"]["role"] for m in history[:4]} == {"human"}


async def test_pages_carry_their_guards_and_serve_htmx_from_the_package(
    api: ApiProcess, make_caller: MakeCaller
) -> None:
    person = await make_caller()
    async with desk_of(api, person) as (client, _):
        for path in ("/desk/inbox", "/desk/timeline", "/desk/search", "/desk/project", "/desk/sessions"):
            page = await client.get(path)
            assert page.status_code == 200, (path, page.text[:300])
            assert page.headers["x-frame-options"] == "DENY"
            assert "default-src 'self'" in page.headers["content-security-policy"]
            assert page.headers["cache-control"] == "no-store"
            assert person.key not in page.text
        htmx = await client.get("/desk/static/htmx.min.js")
        assert htmx.status_code == 200 and htmx.headers["content-type"].startswith("text/javascript")
        assert (await client.get("/desk/static/nothing.js")).status_code == 404
    spec = (await person.http.get("/openapi.json")).json()
    assert not [p for p in spec["paths"] if p.startswith("/desk")]


async def test_a_desk_session_ends_with_its_sign_out_or_its_key(
    peer_api: ApiProcess, make_caller: MakeCaller, db: Database
) -> None:
    """On a process that keeps keys for 5 s (``peer_api``), as a deployment does: a sign-out
    ends the session there at once; revoking the key that signed in, from another process
    (``ctxnet keys revoke``), ends it within those 5 s."""
    person = await make_caller()
    async with desk_of(peer_api, person) as (client, csrf):
        secret = client.cookies["desk_session"]
        assert (await client.post("/desk/sign-out", data={"csrf": csrf})).status_code == 303
        async with httpx.AsyncClient(base_url=peer_api.base_url, cookies={"desk_session": secret}) as old:
            assert (await old.get("/desk/inbox")).headers.get("location") == "/desk/sign-in"
    async with desk_of(peer_api, person) as (client, _):
        signer = next(k for k in await ApiKeys(db).list(person.user_id) if person.key.startswith(k.prefix))
        await ApiKeys(db).revoke(signer.id)
        revoked = time.monotonic()
        while (page := await client.get("/desk/inbox")).status_code == 200:
            assert time.monotonic() - revoked < 6.5, "the session outlived its key's cache"
            await asyncio.sleep(0.25)
        assert page.headers["location"] == "/desk/sign-in"


async def test_a_filtered_timeline_pages_without_gaps_or_repeats(
    api: ApiProcess, make_caller: MakeCaller
) -> None:
    """An agent's notes among a person's: the agent's view shows 50 a page, newest first, and
    its link to older ones continues right after the last one shown."""
    person = await make_caller()
    agent = await make_caller(Role.AGENT, agent_id="scribe", user_id=person.user_id)
    for n in range(6):  # each round: ten of the agent's notes, then two of the person's
        batch = [{"id": f"a{n}-{i}", "title": f"A {n}.{i}", "content": f"Agent note {n} {i}.", "type": "fact",
                  "dedupe": False} for i in range(10)]  # fmt: skip
        assert (await agent.http.post("/v1/knowledge/batch", json={"items": batch})).status_code in (200, 201)
        for i in range(2):
            mine = {
                "id": f"p{n}-{i}",
                "title": "P",
                "content": f"Person note {n} {i}.",
                "type": "fact",
                "dedupe": False,
            }
            assert (await person.http.post("/v1/knowledge", json=mine)).status_code == 201
    async with desk_of(api, person) as (client, _):
        page = await client.get("/desk/timeline", params={"agent": "scribe", "kind": "note"})
        first = re.findall(r'data-op="note.create" data-target="([^"]+)"', page.text)
        older = re.search(r'href="(/desk/timeline\?[^"]*cursor=[^"]+)"', page.text)
        assert len(first) == 50 and older is not None
        rest = re.findall(
            r'data-op="note.create" data-target="([^"]+)"',
            (await client.get(older.group(1).replace("&amp;", "&"))).text,
        )
    assert first + rest == [f"a{n}-{i}" for n in reversed(range(6)) for i in reversed(range(10))]


async def test_a_hub_notes_page_shows_its_first_edges_and_says_where_the_rest_are(
    api: ApiProcess, make_caller: MakeCaller
) -> None:
    """A note joined to 150 others: its page lists the first 100 edges, and the API pages on."""
    person = await make_caller()
    hub = f"hub-{uuid.uuid4().hex[:6]}"
    spokes = [f"spoke-{n:03d}" for n in range(150)]
    notes = [
        {"id": i, "title": i, "content": f"Spoke {i}.", "type": "fact", "dedupe": False}
        for i in [hub, *spokes]
    ]
    assert (await person.http.post("/v1/knowledge/batch", json={"items": notes})).status_code == 201
    edges = [{"sourceId": hub, "type": "relatedTo", "targetId": s} for s in spokes]
    assert (await person.http.post("/v1/connections/batch", json={"items": edges})).status_code == 201
    async with desk_of(api, person) as (client, _):
        page = await client.get(f"/desk/notes/{hub}")
    assert page.status_code == 200
    assert "spoke-099" in page.text and "spoke-100" not in page.text
    assert "The first 100 shown" in page.text and f"/v1/knowledge/{hub}/connections" in page.text
    first = (await person.http.get(f"/v1/knowledge/{hub}/connections", params={"limit": 100})).json()
    rest = await person.http.get(f"/v1/knowledge/{hub}/connections", params={"cursor": first["nextCursor"]})
    assert [e["targetId"] for e in first["items"] + rest.json()["items"]] == spokes
    assert "nextCursor" not in rest.json()
