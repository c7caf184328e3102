"""Neo4j Browser in a real headless Chromium: it connects to the test Neo4j, plays the guide
the API serves, loads the style from the guide, runs an explore query from its click-to-run
blocks, and shows the test user's notes as a graph captioned by their titles."""

from __future__ import annotations

import uuid
from pathlib import Path

import httpx
from playwright.async_api import Locator, Page, async_playwright, expect

from graph.core.browser_guide import GUIDE_PATH, GUIDE_TITLE, STYLE_PATH, explore_queries
from graph.core.settings import Settings
from tests.integration.conftest import MakeCaller
from tests.support.servers import ApiProcess

#: As the machine notes start it: as root, without a sandbox, and without Chromium's own
#: background traffic (this network is closed, and refused connections slow every start).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 60_000


def guide_base(api: ApiProcess) -> str:
    """The test API as Browser reaches it: ``localhost`` is on every Neo4j's default
    allow-list, so this also works against a Neo4j started before its conf allowed 127.0.0.1."""
    return f"http://localhost:{api.port}"


async def run_command(page: Page, command: str) -> None:
    """Type into Browser's editor and run it (inserted, not typed: Monaco would close quotes)."""
    await page.click("#monaco-main-editor")
    await page.keyboard.insert_text(command)
    await page.click('[data-testid="editor-Run"]')


async def play_icon(block: Locator) -> Locator:
    """The play icon Browser puts into a runnable block: it runs the block in a new frame."""
    icon = block.locator("i.fa-play-circle-o")
    await expect(icon).to_be_visible()
    return icon


async def params_shown(page: Page, expected: dict[str, str]) -> None:
    """Wait until Browser holds these parameters. A ``:param`` script evaluates each value on
    the server, one after the other; ``:params`` shows them as they were when it ran."""
    for _ in range(30):
        await run_command(page, ":params")
        shown = page.locator('[data-testid="frame"]').first
        await expect(shown).to_contain_text("{")
        text = await shown.inner_text()
        if all(f'"{name}": "{value}"' in text for name, value in expected.items()):
            return
        await page.wait_for_timeout(500)
    raise AssertionError(f"Browser never held the parameters {expected}; the last :params showed {text}")


def test_the_api_serves_the_guide_and_style_across_origins(api: ApiProcess) -> None:
    origin = {"Origin": "http://127.0.0.1:7474"}
    preflight = httpx.options(
        api.base_url + GUIDE_PATH,
        headers={
            **origin,
            "Access-Control-Request-Method": "GET",
            # What Browser's fetch asks for (Sentry's headers while its error reporting is on).
            "Access-Control-Request-Headers": "cache-control,pragma,sentry-trace,baggage",
        },
    )
    assert preflight.status_code == 204
    assert preflight.headers["access-control-allow-origin"] == "*"
    assert "pragma,sentry-trace,baggage" in preflight.headers["access-control-allow-headers"]
    guide = httpx.get(api.base_url + GUIDE_PATH, headers=origin)
    assert guide.status_code == 200 and guide.headers["content-type"].startswith("text/html")
    assert guide.headers["access-control-allow-origin"] == "*"
    assert f":style {api.base_url}{STYLE_PATH}" in guide.text
    style = httpx.get(api.base_url + STYLE_PATH, headers=origin)
    assert style.status_code == 200 and "node.Knowledge" in style.text
    assert style.headers["access-control-allow-origin"] == "*"


async def test_browser_plays_the_guide_and_runs_an_explore_query(
    make_caller: MakeCaller, api: ApiProcess, settings: Settings, chromium: str, artifacts: Path
) -> None:
    caller = await make_caller()
    token = uuid.uuid4().hex[:6]
    titles = {"fact": f"Fact {token}", "concept": f"Concept {token}"}
    for kind, title in titles.items():
        body = {
            "id": f"{kind}-{token}",
            "title": title,
            "content": f"A {kind}.",
            "type": kind,
            "dedupe": False,
        }
        assert (await caller.http.post("/v1/knowledge", json=body)).status_code == 201
    edge = {"type": "relatedTo", "targetId": f"concept-{token}"}
    assert (await caller.http.post(f"/v1/knowledge/fact-{token}/connections", json=edge)).status_code == 201

    base = guide_base(api)
    slides = [query.title for query in explore_queries()]
    neighborhood = 2 + slides.index("Note neighborhood")  # after the two slides about the graph
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        page = await browser.new_page(viewport={"width": 1400, "height": 1100})
        page.set_default_timeout(TIMEOUT_MS)
        expect.set_options(timeout=TIMEOUT_MS)  # a cold Browser and a first query take seconds
        frames = page.locator('[data-testid="frame"]')
        try:
            # Connect, as a person does on Browser's first page.
            await page.goto(f"http://127.0.0.1:{settings.neo4j_http_port}/browser/")
            await page.fill(
                'input[data-testid="boltaddress"]', f"bolt://127.0.0.1:{settings.neo4j_bolt_port}"
            )
            await page.fill('input[data-testid="username"]', settings.neo4j_user)
            await page.fill('input[data-testid="password"]', settings.resolved_neo4j_password() or "")
            await page.click('button[data-testid="connect"]')
            await expect(page.get_by_text("You are connected as user")).to_be_visible()

            # Play the guide from the API: the frame of this command with a carousel (the title
            # is on slide 1 only; Neo4j's post-connect command may have played another API's).
            await run_command(page, f":play {base}{GUIDE_PATH}")
            guide = frames.filter(has=page.locator('[data-testid="carousel"]')).filter(
                has_text=base + GUIDE_PATH
            )
            await expect(guide.locator("h3", has_text=GUIDE_TITLE)).to_be_visible()
            await guide.screenshot(path=artifacts / "browser-guide.png")

            # Load the style from the guide's own block.
            await (await play_icon(guide.locator("pre.runnable", has_text=":style "))).click()
            await expect(frames.filter(has_text="node.Knowledge").first).to_be_visible()

            # Walk to the note_neighborhood slide; its :param block (two lines) runs as it is.
            for _ in range(neighborhood):
                await guide.locator('[data-testid="nextSlide"]').click()
            await expect(guide.locator("h3", has_text="Note neighborhood")).to_be_visible()
            await (await play_icon(guide.locator("pre.runnable", has_text=":param noteId"))).click()
            await params_shown(page, {"userId": "dev", "noteId": "api-auth"})
            # Then this test's user and note instead of the examples.
            await run_command(page, f":param userId => '{caller.user_id}';\n:param noteId => 'fact-{token}'")
            await params_shown(page, {"userId": caller.user_id, "noteId": f"fact-{token}"})

            # Run the query from its block: the note, its neighbour and the edge, as a graph.
            query = guide.locator("pre.runnable", has_text="MATCH (n:Knowledge")
            await (await play_icon(query)).click()
            result = frames.filter(has=page.locator("svg .node")).first
            await expect(result).to_contain_text("Displaying 2 nodes, 1 relationships")
            # Captioned by title, as the style says (Browser's own default would be the id).
            for title in titles.values():
                await expect(result.locator("svg .node", has_text=title)).to_have_count(1)
            shot = artifacts / "browser-guide-query.png"
            await result.screenshot(path=shot)
            print(f"screenshots: {artifacts / 'browser-guide.png'} {shot}")
        except Exception:
            failure = artifacts / "browser-guide-failure.png"
            await page.screenshot(path=failure, full_page=True)
            print(f"what the page showed: {failure}")
            raise
        finally:
            await browser.close()
