"""The desk's door under hostile use, over real HTTP: failed sign-ins throttled per client and
per person (429 with Retry-After), a sign-in that mints no key (one session per key, also
when one person signs in many times at once), ``__Host-`` cookies over HTTPS, and an edit
that writes only the fields the person changed, refusing one changed under them."""

from __future__ import annotations

import asyncio
import html
import re
import secrets
import uuid

import httpx

from graph.core.db import Database
from graph.core.principals import ApiKeys, Role
from tests.integration.conftest import Caller, MakeCaller
from tests.integration.core.test_cli import ctxnet
from tests.integration.desk.test_desk_http import desk_of, token_of
from tests.support.servers import ApiProcess

#: Ten unrelated facts an agent writes.
TOPICS = (
    "Staging is rebuilt every Sunday night.",
    "Invoices are sent on the first working day of the month.",
    "The office coffee machine takes only oat milk.",
    "Support answers tickets in English and Dutch.",
    "Passwords rotate every ninety days.",
    "The mobile app ships on Thursdays.",
    "Backups are kept for thirty-five days.",
    "The design team works from Lisbon.",
    "Kafka topics keep messages for a week.",
    "Interns get a laptop on their first morning.",
)
#: The API's defaults (graph/core/settings.py), which the ``api`` fixture keeps.
CLIENT_FAILURES = 5
USER_FAILURES = 10


def a_client() -> str:
    """An address of its own for one test's browser: the API trusts X-Forwarded-For from
    127.0.0.1 (uvicorn's default), so tests running side by side do not share a budget."""
    return f"10.{secrets.randbelow(256)}.{secrets.randbelow(256)}.{secrets.randbelow(254) + 1}"


async def sign_in(api: ApiProcess, key: str, client: str) -> httpx.Response:
    """One sign-in from ``client`` with ``key``, through the form as a browser posts it."""
    headers = {"X-Forwarded-For": client}
    async with httpx.AsyncClient(base_url=api.base_url, timeout=30, headers=headers) as browser:
        form = await browser.get("/desk/sign-in")
        return await browser.post("/desk/sign-in", data={"key": key, "csrf": token_of(form.text)})


def a_wrong_key(like: str | None = None) -> str:
    """A key no one holds; with ``like``, one that carries that key's shown prefix."""
    tail = secrets.token_urlsafe(32)
    return (like[:11] if like else "ctxn_") + tail[: 43 - (6 if like else 0)]


async def test_wrong_keys_from_one_client_are_refused_with_429_past_the_limit(
    api: ApiProcess, make_caller: MakeCaller
) -> None:
    person = await make_caller()
    attacker = a_client()
    for _ in range(CLIENT_FAILURES):
        assert (await sign_in(api, a_wrong_key(), attacker)).status_code == 401
    # Past the limit, even the right key is refused from there, and the page says when to retry.
    refused = await sign_in(api, person.key, attacker)
    assert refused.status_code == 429, refused.text
    assert 1 <= int(refused.headers["retry-after"]) <= 120
    assert "too many failed sign-ins" in refused.text and "desk_session" not in refused.headers.get(
        "set-cookie", ""
    )
    # Another client is not held by it.
    assert (await sign_in(api, person.key, a_client())).status_code == 303


async def test_the_client_limit_holds_over_api_processes(
    api: ApiProcess, peer_api: ApiProcess, make_caller: MakeCaller
) -> None:
    """Failures are counted in Neo4j: three on one process and two on another use up the
    client's five; the first process learns it at its next failure, and then refuses even
    the right key without asking."""
    person = await make_caller()
    attacker = a_client()
    for process, times in ((api, 3), (peer_api, CLIENT_FAILURES - 3)):
        for _ in range(times):
            assert (await sign_in(process, a_wrong_key(), attacker)).status_code == 401
    assert (await sign_in(peer_api, person.key, attacker)).status_code == 429
    assert (await sign_in(api, a_wrong_key(), attacker)).status_code == 429
    assert (await sign_in(api, person.key, attacker)).status_code == 429


async def test_wrong_keys_against_one_person_from_many_clients_are_refused_past_the_limit(
    api: ApiProcess, make_caller: MakeCaller
) -> None:
    person = await make_caller()
    other = await make_caller()
    # Each attempt from a new address: the client limit never bites; the person's does. A
    # wrong key bearing the person's key prefix counts against them.
    for _ in range(USER_FAILURES):
        assert (await sign_in(api, a_wrong_key(like=person.key), a_client())).status_code == 401
    refused = await sign_in(api, person.key, a_client())
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1, refused.text
    # Another person is not held by it, and a wrong key that looks like no one's counts for
    # its client only.
    assert (await sign_in(api, other.key, a_client())).status_code == 303
    assert (await sign_in(api, a_wrong_key(), a_client())).status_code == 401


async def test_an_agent_typing_its_own_key_never_locks_its_person_out(
    api: ApiProcess, make_caller: MakeCaller
) -> None:
    """An agent's key is refused at the desk (403), and the refusal counts against the client
    that typed it only: an agent cannot spend its person's sign-in budget, from any number of
    addresses. Nor can a wrong key bearing only the agent key's prefix."""
    person = await make_caller()
    agent = await make_caller(Role.AGENT, agent_id="scribe", user_id=person.user_id)
    clients = [a_client() for _ in range(4)]
    for n in range(15):
        refused = await sign_in(api, agent.key, clients[n % len(clients)])
        assert refused.status_code == 403, (n, refused.status_code, refused.text[:300])
    for client in clients:
        assert (await sign_in(api, a_wrong_key(like=agent.key), client)).status_code in (401, 429)
    # The person's own key opens the desk, at once, from an address of its own.
    assert (await sign_in(api, person.key, a_client())).status_code == 303
    # The agent's client is still held by its own failures.
    assert (await sign_in(api, person.key, clients[0])).status_code == 429


async def test_a_persons_key_labelled_like_desk_is_theirs_not_an_old_session_key(
    api: ApiProcess, make_caller: MakeCaller, db: Database
) -> None:
    """Only the exact label an earlier version minted (``desk:<epoch>:<key id or ->``) marks an
    old session key: a person's own key labelled ``desk:2025`` signs in, a sign-in with
    another of their keys leaves it standing, and the API takes it as the key it is."""
    person = await make_caller()
    keys = ApiKeys(db)
    mine, secret = await keys.create(person.user_id, Role.HUMAN, label="desk:2025")
    other, other_secret = await keys.create(person.user_id, Role.HUMAN, label="desk:2025:laptop")
    assert (await sign_in(api, secret, a_client())).status_code == 303
    assert (await sign_in(api, person.key, a_client())).status_code == 303
    standing = {k.id for k in await keys.list(person.user_id)}
    assert {mine.id, other.id} <= standing
    async with httpx.AsyncClient(base_url=api.base_url, timeout=30) as plain:
        for key in (secret, other_secret):
            me = await plain.get("/v1/me", headers={"Authorization": f"Bearer {key}"})
            assert me.status_code == 200 and me.json()["userId"] == person.user_id, me.text
        minted, minted_secret = await keys.create(
            person.user_id, Role.HUMAN, label=f"desk:9999999999:{mine.id}"
        )
        old = await plain.get("/v1/me", headers={"Authorization": f"Bearer {minted_secret}"})
        assert old.status_code == 401, old.text  # a session key an earlier version minted: desk only


async def test_signing_in_mints_no_key_and_keeps_one_session_per_key(
    api: ApiProcess, make_caller: MakeCaller, db: Database
) -> None:
    person = await make_caller()
    keys = ApiKeys(db)
    before = [k.id for k in await keys.list(person.user_id)]
    # A desk session key an earlier version minted goes at the next sign-in.
    minted, _ = await keys.create(person.user_id, Role.HUMAN, label=f"desk:9999999999:{person.key_id}")
    sessions: list[str] = []
    for _ in range(3):
        async with desk_of(api, person) as (client, _):
            sessions.append(client.cookies["desk_session"])
    assert [k.id for k in await keys.list(person.user_id)] == before
    assert minted.id in {k.id for k in await keys.list(person.user_id, include_revoked=True) if k.revoked_at}

    # Eight browsers of the one person sign in at once: still no new key, and one session
    # stands, the newest, on the person's own key; every earlier one sends its browser to
    # sign in again.
    async def one() -> str:
        async with httpx.AsyncClient(base_url=api.base_url, timeout=30) as browser:
            form = await browser.get("/desk/sign-in")
            signed = await browser.post(
                "/desk/sign-in", data={"key": person.key, "csrf": token_of(form.text)}
            )
            assert signed.status_code == 303, signed.text
            return browser.cookies["desk_session"]

    sessions += await asyncio.gather(*(one() for _ in range(8)))
    assert [k.id for k in await keys.list(person.user_id)] == before
    standing = [s for s in sessions if await _opens(api, s)]
    assert len(standing) == 1 and standing[0] in sessions[3:]
    # The person's key still works at the API; it is not the session.
    assert (await person.http.get("/v1/me")).status_code == 200
    # `ctxnet keys list` shows the same keys, the person's with its desk session, and labels.
    listed = ctxnet("keys", "list", "--user", person.user_id, "--revoked").stdout.splitlines()
    assert len(listed) == len(before) + 1, listed
    [mine] = [line for line in listed if line.startswith(person.key_id)]
    assert "desk-session-until=" in mine
    [old] = [line for line in listed if line.startswith(minted.id)]
    assert f'label="desk:9999999999:{person.key_id}"' in old and "revoked" in old


async def _opens(api: ApiProcess, secret: str) -> bool:
    async with httpx.AsyncClient(base_url=api.base_url, cookies={"desk_session": secret}) as browser:
        page = await browser.get("/desk/inbox")
        assert page.status_code in (200, 303)
        return page.status_code == 200


async def test_cookies_are_host_prefixed_over_https_and_plain_on_local_http(
    api: ApiProcess, make_caller: MakeCaller
) -> None:
    person = await make_caller()
    https = {"X-Forwarded-Proto": "https", "X-Forwarded-For": a_client()}
    async with httpx.AsyncClient(base_url=api.base_url, timeout=30) as browser:
        form = await browser.get("/desk/sign-in", headers=https)
        set_cookie = form.headers["set-cookie"]
        assert set_cookie.startswith("__Host-desk_signin=") and "Secure" in set_cookie
        assert "Path=/;" in set_cookie and "domain" not in set_cookie.lower()
        token = set_cookie.split(";")[0].split("=", 1)[1]
        browser.cookies.clear()
        # A plain-named cookie (set by another service on the host) is no sign-in form's.
        forged = await browser.post(
            "/desk/sign-in",
            data={"key": person.key, "csrf": token_of(form.text)},
            headers={**https, "Cookie": f"desk_signin={token}"},
        )
        assert forged.status_code == 403
        browser.cookies.clear()
        signed = await browser.post(
            "/desk/sign-in",
            data={"key": person.key, "csrf": token_of(form.text)},
            headers={**https, "Cookie": f"__Host-desk_signin={token}"},
        )
        assert signed.status_code == 303, signed.text
        session = next(
            c for c in signed.headers.get_list("set-cookie") if c.startswith("__Host-desk_session=")
        )
        assert "Secure" in session and "HttpOnly" in session and "Path=/;" in session
        secret = session.split(";")[0].split("=", 1)[1]
        browser.cookies.clear()
        opened = await browser.get(
            "/desk/inbox", headers={**https, "Cookie": f"__Host-desk_session={secret}"}
        )
        assert opened.status_code == 200
        plain = await browser.get("/desk/inbox", headers={**https, "Cookie": f"desk_session={secret}"})
        assert plain.status_code == 303
    # Plain http on 127.0.0.1 (no __Host- without Secure): named plainly, on /desk.
    async with httpx.AsyncClient(base_url=api.base_url, timeout=30) as browser:
        set_cookie = (await browser.get("/desk/sign-in")).headers["set-cookie"]
        assert set_cookie.startswith("desk_signin=") and "Path=/desk" in set_cookie
        assert "secure" not in set_cookie.lower()


def _form(html: str) -> dict[str, str]:
    """The edit form's fields as a browser would post them untouched: the markup's CR and CRLF
    read as LF, a title's ``<input>`` value without its line breaks, a textarea's first line
    break the markup's and its line breaks sent back as CRLF."""
    fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', html))
    title = re.search(r'<input id="title" name="title" value="([^"]*)"', html)
    content = re.search(r'<textarea id="content" name="content" required>\n(.*?)</textarea>', html, re.S)
    assert title and content, html[:500]
    shown_title = _parsed(title.group(1)).replace("\n", "")
    return {**fields, "title": shown_title, "content": _parsed(content.group(1)).replace("\n", "\r\n")}


def _parsed(markup: str) -> str:
    """Text as a browser's HTML parser reads it: CRLF and CR become LF, references resolved."""
    return html.unescape(markup.replace("\r\n", "\n").replace("\r", "\n"))


async def _agent_note(
    agent: Caller, note_id: str, title: str = "Retries", content: str = "Billing retries\ntwice."
) -> None:
    body = {"id": note_id, "title": title, "content": content, "type": "fact"}
    made = await agent.http.post("/v1/knowledge", json={**body, "dedupe": False})
    assert made.status_code == 201, made.text


async def test_a_desk_title_fix_writes_only_the_title(api: ApiProcess, make_caller: MakeCaller) -> None:
    """Review N12: a title fixed at the desk is the person's; the agent's content stays the
    agent's, exactly as after the same fix through the API."""
    person = await make_caller()
    agent = await make_caller(Role.AGENT, agent_id="scribe", user_id=person.user_id)
    t = uuid.uuid4().hex[:6]
    desk_note, api_note = f"desk-{t}", f"api-{t}"
    for note_id in (desk_note, api_note):
        await _agent_note(agent, note_id)
    async with desk_of(api, person) as (client, _):
        form = _form((await client.get(f"/desk/notes/{desk_note}")).text)
        saved = await client.post(f"/desk/notes/{desk_note}/edit", data={**form, "title": "Billing retries"})
        assert saved.status_code == 303 and "done=saved" in saved.headers["location"]
        # Saving the form untouched writes nothing.
        form = _form((await client.get(f"/desk/notes/{desk_note}")).text)
        same = await client.post(f"/desk/notes/{desk_note}/edit", data=form)
        assert same.status_code == 303 and "done=unchanged" in same.headers["location"]
    assert (
        await person.http.patch(f"/v1/knowledge/{api_note}", json={"title": "Billing retries"})
    ).status_code == 200
    by_desk = (await person.http.get(f"/v1/knowledge/{desk_note}")).json()
    by_api = (await person.http.get(f"/v1/knowledge/{api_note}")).json()
    assert by_desk["writtenBy"]["personFields"] == ["title"] == by_api["writtenBy"]["personFields"]
    assert by_desk["content"] == "Billing retries\ntwice."
    fixes = (await person.http.get("/v1/mutations", params={"targetId": desk_note})).json()["items"]
    assert [m["op"] for m in fixes].count("note.update") == 1
    # The agent's later change of the content meets the same rule on both notes.
    answers = [
        (
            await agent.http.patch(f"/v1/knowledge/{n}", json={"content": "Billing retries thrice."})
        ).status_code
        for n in (desk_note, api_note)
    ]
    assert answers[0] == answers[1], answers


async def test_a_content_fix_leaves_an_agents_title_with_a_line_break_the_agents(
    api: ApiProcess, make_caller: MakeCaller
) -> None:
    """A title holding a line break comes back from the form's <input> without it, and a lone
    CR in the content comes back as CRLF: neither is a change the person made. A content-only
    fix writes the content alone; the title stays the agent's, line break and all."""
    person = await make_caller()
    agent = await make_caller(Role.AGENT, agent_id="scribe", user_id=person.user_id)
    note_id = f"breaks-{uuid.uuid4().hex[:6]}"
    await _agent_note(agent, note_id, title="Billing\nretries", content="Billing retries\rtwice & more.")
    async with desk_of(api, person) as (client, _):
        form = _form((await client.get(f"/desk/notes/{note_id}")).text)
        assert form["title"] == "Billingretries", form
        # Saving it untouched saves nothing: neither field looks changed.
        same = await client.post(f"/desk/notes/{note_id}/edit", data=form)
        assert same.status_code == 303 and "done=unchanged" in same.headers["location"]
        fixed = await client.post(
            f"/desk/notes/{note_id}/edit", data={**form, "content": "Billing retries\r\nthrice."}
        )
        assert fixed.status_code == 303 and "done=saved" in fixed.headers["location"], fixed.text
    note = (await person.http.get(f"/v1/knowledge/{note_id}")).json()
    assert note["title"] == "Billing\nretries" and note["content"] == "Billing retries\nthrice."
    assert note["writtenBy"]["personFields"] == ["content"]


async def test_a_desk_edit_refuses_to_overwrite_what_changed_under_it(
    api: ApiProcess, make_caller: MakeCaller
) -> None:
    person = await make_caller()
    agent = await make_caller(Role.AGENT, agent_id="scribe", user_id=person.user_id)
    note_id = f"under-{uuid.uuid4().hex[:6]}"
    await _agent_note(agent, note_id)
    async with desk_of(api, person) as (client, _):
        form = _form((await client.get(f"/desk/notes/{note_id}")).text)
        # While the page is open, the agent rewrites the content.
        moved = await agent.http.patch(f"/v1/knowledge/{note_id}", json={"content": "Billing retries once."})
        assert moved.status_code == 200, moved.text
        clash = await client.post(
            f"/desk/notes/{note_id}/edit", data={**form, "content": "Billing retries 3x."}
        )
        assert clash.status_code == 409 and "changed since this page was loaded" in clash.text
        assert (await person.http.get(f"/v1/knowledge/{note_id}")).json()[
            "content"
        ] == "Billing retries once."
        # A change of another field goes through, and leaves the agent's new content standing.
        fixed = await client.post(f"/desk/notes/{note_id}/edit", data={**form, "title": "Billing"})
        assert fixed.status_code == 303
    note = (await person.http.get(f"/v1/knowledge/{note_id}")).json()
    assert (note["title"], note["content"]) == ("Billing", "Billing retries once.")
    assert note["writtenBy"]["personFields"] == ["title"]


async def test_a_title_fix_racing_an_agents_content_write_never_undoes_it(
    api: ApiProcess, make_caller: MakeCaller
) -> None:
    """The person fixes the title while the agent rewrites the content, at once, ten times:
    whichever lands first, an agent's write that was applied (200) stands, the title is the
    person's, and the content never becomes the person's."""
    person = await make_caller()
    agent = await make_caller(Role.AGENT, agent_id="scribe", user_id=person.user_id)
    t = uuid.uuid4().hex[:6]
    async with desk_of(api, person) as (client, _):
        for n in range(10):
            note_id = f"race-{t}-{n}"
            # Texts of their own: a person's fix of one is no twin of the next.
            await _agent_note(agent, note_id, title=TOPICS[n].split(" ")[0], content=TOPICS[n])
            form = _form((await client.get(f"/desk/notes/{note_id}")).text)
            fixed, wrote = await asyncio.gather(
                client.post(f"/desk/notes/{note_id}/edit", data={**form, "title": f"Fixed {n}"}),
                agent.http.patch(f"/v1/knowledge/{note_id}", json={"content": f"{TOPICS[n]} Not any more."}),
            )
            assert fixed.status_code == 303 and wrote.status_code in (200, 202), wrote.text
            note = (await person.http.get(f"/v1/knowledge/{note_id}")).json()
            assert note["title"] == f"Fixed {n}" and note["writtenBy"]["personFields"] == ["title"]
            if wrote.status_code == 200:
                assert note["content"] == f"{TOPICS[n]} Not any more."
