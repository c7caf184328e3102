"""The desk in a real headless Chromium: a person signs in, decides an agent's proposals,
undoes an agent's write, corrects a note that the agent's next session is told of, looks at
one agent's view, and meets 404s, CSRF refusals and a refused agent key; axe-core finds no
serious or critical problem on any page. One browser for the module."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import axe_playwright_python
import httpx
import pytest_asyncio
from playwright.async_api import Browser, BrowserContext, Page, async_playwright, expect

from graph.core.principals import Role
from tests.integration.browser.test_browser_guide import CHROMIUM_ARGS
from tests.integration.conftest import Caller, MakeCaller
from tests.support.servers import ApiProcess

AXE = Path(axe_playwright_python.__file__).parent / "axe.min.js"
TIMEOUT_MS = 20_000


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def browser(chromium: str) -> AsyncIterator[Browser]:
    """One Chromium for the module's tests."""
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        yield launched
        await launched.close()


async def signed_in(browser: Browser, api: ApiProcess, key: str) -> tuple[BrowserContext, Page]:
    """A fresh browser context signed in to the desk with ``key``. CSP is bypassed only so
    the test can inject axe-core; the desk's own pages need nothing inline."""
    context = await browser.new_context(
        base_url=api.base_url, bypass_csp=True, viewport={"width": 1280, "height": 900}
    )
    context.set_default_timeout(TIMEOUT_MS)
    page = await context.new_page()
    await page.goto("/desk")
    await page.fill("#key", key)
    await page.click("button[type=submit]")
    await expect(page.locator("h1")).to_have_text("Inbox")
    return context, page


async def accessible(page: Page) -> None:
    """axe-core over the page as it is: no serious or critical violation."""
    await page.add_script_tag(path=str(AXE))
    found: list[dict[str, Any]] = await page.evaluate(
        """async () => (await axe.run(document, {resultTypes: ['violations']})).violations
            .map(v => ({id: v.id, impact: v.impact, help: v.help,
                        nodes: v.nodes.map(n => n.html).slice(0, 3)}))"""
    )
    bad = [v for v in found if v["impact"] in ("serious", "critical")]
    assert not bad, f"{page.url}: {bad}"


async def proposal_over(person: Caller, agent: Caller, note_id: str, text: str) -> str:
    """An agent's note a person corrects; the agent's write back waits: the proposal's id."""
    body = {"id": note_id, "title": f"Note {note_id}", "content": text, "type": "fact", "dedupe": False}
    assert (await agent.http.post("/v1/knowledge", json=body)).status_code == 201
    fixed = await person.http.patch(
        f"/v1/knowledge/{note_id}",
        json={"content": f"Corrected: {text}"},
        headers={"X-Change-Reason": "audit"},
    )
    assert fixed.status_code == 200, fixed.text
    back = await agent.http.patch(f"/v1/knowledge/{note_id}", json={"content": f"Agent again: {text}"})
    assert back.status_code == 202, back.text
    return str(back.json()["proposal"]["id"])


async def content_of(caller: Caller, note_id: str) -> str:
    answer = await caller.http.get(f"/v1/knowledge/{note_id}")
    assert answer.status_code == 200, answer.text
    return str(answer.json()["content"])


async def test_a_person_decides_undoes_and_corrects_at_the_desk(
    browser: Browser, api: ApiProcess, make_caller: MakeCaller, artifacts: Path
) -> None:
    person = await make_caller()
    agent = await make_caller(Role.AGENT, agent_id="scribe", user_id=person.user_id)
    t = uuid.uuid4().hex[:6]
    approve_id = await proposal_over(person, agent, f"approve-{t}", "Tokens last 15 minutes.")
    reject_id = await proposal_over(person, agent, f"reject-{t}", "Billing retries thrice.")
    context, page = await signed_in(browser, api, person.key)
    try:
        # The session: an HttpOnly, SameSite=Strict cookie on /desk that is not the key.
        cookies = {c["name"]: c for c in await context.cookies()}
        session = cookies["desk_session"]
        assert session["httpOnly"] and session["sameSite"] == "Strict" and session["path"] == "/desk"
        assert all(person.key not in c["value"] for c in cookies.values())
        assert await page.evaluate("document.cookie") == ""
        stored = await page.evaluate("JSON.stringify(localStorage) + JSON.stringify(sessionStorage)")
        assert person.key not in stored

        # The inbox: both proposals, with the agent, the diff and why they were held.
        card = page.locator(f"#proposal-{approve_id}")
        await expect(card).to_contain_text("agent scribe")
        await expect(card.locator("ins")).to_contain_text("Agent")
        await expect(card).to_contain_text("audit")
        await expect(page.locator(f"#proposal-{reject_id}")).to_be_visible()
        await expect(page.locator("#inbox-count")).to_contain_text("2 proposals")
        await accessible(page)
        await page.screenshot(path=artifacts / "desk-inbox.png", full_page=True)

        # Approve one: the note changes. Reject the other: it stays as the person wrote it.
        await page.check(f"#pick-{approve_id}")
        await page.click("button[value=approve]")
        await expect(page.locator(f"#decided [data-proposal='{approve_id}']")).to_contain_text("approved")
        await page.click(f"#decided a[href*='approve-{t}']")
        await expect(page.locator("#note-content")).to_have_text("Agent again: Tokens last 15 minutes.")
        assert await content_of(person, f"approve-{t}") == "Agent again: Tokens last 15 minutes."
        await accessible(page)
        await page.goto("/desk/inbox")
        await page.check(f"#pick-{reject_id}")
        await page.click("button[value=reject]")
        await expect(page.locator(f"#decided [data-proposal='{reject_id}']")).to_contain_text("rejected")
        await expect(page.locator("#no-proposals")).to_be_visible()
        assert await content_of(person, f"reject-{t}") == "Corrected: Billing retries thrice."

        # Undo an agent's write from the timeline; an undo later writes stand in the way of
        # is refused with the 409's reason.
        made = {
            "id": f"undo-{t}",
            "title": "Scratch",
            "content": "A scratch note.",
            "type": "fact",
            "dedupe": False,
        }
        assert (await agent.http.post("/v1/knowledge", json=made)).status_code == 201
        await page.goto("/desk/timeline?agent=scribe")
        await accessible(page)
        entry = page.locator(f"#timeline li[data-op='note.create'][data-target='undo-{t}']")
        await entry.get_by_role("button", name="Undo").click()
        await expect(entry.locator(".undo-result")).to_contain_text("Undone")
        assert (await person.http.get(f"/v1/knowledge/undo-{t}")).status_code == 404
        blocked = page.locator(f"#timeline li[data-op='note.create'][data-target='approve-{t}']")
        await blocked.get_by_role("button", name="Undo").click()
        await expect(blocked.locator(".undo-result")).to_contain_text("Undo refused")

        # Correct an agent's note: the agent's next session hears of it in orient.
        wrong = {"id": f"fix-{t}", "title": "Retries", "content": "Billing retries thrice.", "type": "fact"}
        assert (await agent.http.post("/v1/knowledge", json={**wrong, "dedupe": False})).status_code == 201
        await page.goto(f"/desk/notes/fix-{t}")
        await accessible(page)
        await page.fill("#content", "Billing retries twice, then gives up.")
        await page.fill("#why", "checked the billing code")
        await page.get_by_role("button", name="Save the correction").click()
        await expect(page.locator("#done")).to_contain_text("saved")
        await expect(page.locator("#note-content")).to_have_text("Billing retries twice, then gives up.")
        started = await agent.http.post("/v1/sessions", json={"topic": "billing"})
        headers = {"X-Session-ID": started.json()["session"]["id"]}
        oriented = (await agent.http.post("/v1/orient", json={}, headers=headers)).json()
        told = {(c["targetId"], c["reason"]) for c in oriented["lastCorrections"]}
        assert (f"fix-{t}", "checked the billing code") in told

        # The other pages, each accessible.
        await page.goto("/desk/search?q=billing+retries")
        await expect(page.locator("#results a", has_text="Retries")).to_be_visible()
        await accessible(page)
        for path in ("/desk/project", "/desk/sessions?agent=scribe", "/desk/inbox?agent=scribe"):
            await page.goto(path)
            await accessible(page)
        await page.goto("/desk/timeline")
        await page.screenshot(path=artifacts / "desk-timeline.png", full_page=True)
    finally:
        await context.close()


async def test_scopes_other_users_csrf_and_agent_keys(
    browser: Browser, api: ApiProcess, make_caller: MakeCaller
) -> None:
    person = await make_caller()
    scribe = await make_caller(Role.AGENT, agent_id="scribe", user_id=person.user_id)
    other = await make_caller(Role.AGENT, agent_id="other", user_id=person.user_id)
    stranger = await make_caller()
    stranger_agent = await make_caller(Role.AGENT, agent_id="scribe", user_id=stranger.user_id)
    t = uuid.uuid4().hex[:6]
    scribe_proposal = await proposal_over(person, scribe, f"scribe-{t}", "Scribe's fact.")
    assert (await scribe.http.post("/v1/sessions", json={"topic": f"scribe topic {t}"})).status_code == 201
    assert (await other.http.post("/v1/sessions", json={"topic": f"other topic {t}"})).status_code == 201
    theirs = {
        "id": f"theirs-{t}",
        "title": "Theirs",
        "content": "Not yours.",
        "type": "fact",
        "dedupe": False,
    }
    assert (await stranger.http.post("/v1/knowledge", json=theirs)).status_code == 201
    [their_mutation] = (await stranger.http.get("/v1/mutations", params={"limit": 1})).json()["items"]
    their_proposal = await proposal_over(stranger, stranger_agent, f"theirs-p-{t}", "Their fact.")

    context, page = await signed_in(browser, api, person.key)
    try:
        # Agent other's view shows nothing of scribe's.
        await page.goto("/desk/inbox?agent=other")
        await expect(page.locator("#no-proposals")).to_be_visible()
        assert await page.locator(f"#proposal-{scribe_proposal}").count() == 0
        await page.goto("/desk/timeline?agent=other")
        assert "scribe" not in await page.locator("#timeline").inner_text()
        await page.goto("/desk/sessions?agent=other")
        sessions = await page.locator("#sessions").inner_text()
        assert f"other topic {t}" in sessions and f"scribe topic {t}" not in sessions
        await accessible(page)
        await page.goto("/desk/inbox?agent=scribe")
        await expect(page.locator(f"#proposal-{scribe_proposal}")).to_be_visible()

        # Another user's ids: 404, to a read and to a write with this session's token.
        assert (await page.goto(f"/desk/notes/theirs-{t}")).status == 404  # type: ignore[union-attr]
        await accessible(page)
        await page.goto("/desk/inbox")
        csrf = await page.locator("input[name=csrf]").first.input_value()
        undo = await page.request.post(f"/desk/mutations/{their_mutation['id']}/undo", form={"csrf": csrf})
        assert undo.status == 404
        decide = await page.request.post(
            "/desk/proposals/decide", form={"csrf": csrf, "action": "approve", "id": their_proposal}
        )
        assert decide.status == 404
        assert (await stranger.http.get(f"/v1/knowledge/theirs-{t}")).status_code == 200
        waiting = (await stranger.http.get(f"/v1/proposals/{their_proposal}")).json()
        assert waiting["status"] == "pending"

        # A form without this session's CSRF token changes nothing.
        for form in ({}, {"csrf": "0" * 64}):
            refused = await page.request.post(f"/desk/notes/scribe-{t}/delete", form=form)
            assert refused.status == 403
        assert (await person.http.get(f"/v1/knowledge/scribe-{t}")).status_code == 200

        # Signing out ends the session on the server: its cookie no longer opens a page.
        secret = next(c["value"] for c in await context.cookies() if c["name"] == "desk_session")
        await page.get_by_role("button", name="Sign out").click()
        await expect(page.locator("h1")).to_have_text("Sign in to the desk")
        async with httpx.AsyncClient(base_url=api.base_url, cookies={"desk_session": secret}) as old:
            assert (await old.get("/desk/inbox")).status_code == 303
    finally:
        await context.close()

    # An agent's key is refused at the door.
    context = await browser.new_context(base_url=api.base_url, bypass_csp=True)
    try:
        page = await context.new_page()
        await page.goto("/desk/sign-in")
        await accessible(page)
        await page.fill("#key", scribe.key)
        await page.click("button[type=submit]")
        await expect(page.locator(".problem")).to_contain_text("not an agent's")
        assert not [c for c in await context.cookies() if c["name"] == "desk_session"]
    finally:
        await context.close()
