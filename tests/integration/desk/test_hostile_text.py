"""No request holds the event loop, whatever text an agent stored (issue 45, review finding N2).

Hostile text (runs of spaces, repeated and alternating tokens, 20,000 characters, mixed
scripts, markup, and the review's probe: ``("a" + " " * 10) * N`` PATCHed so that every fifth
``a`` is a ``b``) is written through every write operation of the live OpenAPI document, into
every free text field, by an agent over a person's notes (proposals) and by a person over an
agent's (corrections). Then, while a process of its own times ``GET /health`` on the same one-worker API,
the person opens every GET page of the desk's router (each note's page, each agent's view)
and calls every read operation of the document. No page may take over :data:`PAGE_SECONDS`,
and ``/health`` may never wait over :data:`HEALTH_SECONDS`. A desk page or an operation added
tomorrow is walked the day it exists; one the test cannot place fails it until taught."""

from __future__ import annotations

import itertools
import re
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from api.app import create_app
from graph.core.principals import Role
from tests.integration.conftest import Caller, MakeCaller
from tests.support.desk import desk_client
from tests.support.desk_sweep import DeskCall, desk_calls
from tests.support.hostile import TEXTS, CallLog, HealthClock, fill, probe
from tests.support.resources import RESOURCES
from tests.support.servers import ApiProcess, running_api
from tests.support.sweep import NAMED, every_item, seed_everything, sweep

#: The slowest a desk page may answer, and the longest ``/health`` may wait meanwhile.
PAGE_SECONDS = 0.5
HEALTH_SECONDS = 0.2
#: Writes not sent hostile text, and why (every DELETE is left out too: it takes no text).
NOT_WRITTEN = {
    ("post", "/v1/forget"): "forgets what the test stored",
    ("post", "/v1/restore"): "loads a dump into an emptied user",
    ("post", "/v1/restore/batches"): "loads a dump into an emptied user",
    ("post", "/v1/restore/finish"): "loads a dump into an emptied user",
    ("post", "/v1/maintenance/{task}"): "housekeeping, takes no text",
    ("post", "/v1/mutations/{id}/undo"): "takes no text",
    ("post", "/v1/proposals/{id}/approve"): "would settle a proposal the inbox must show",
    ("post", "/v1/proposals/{id}/reject"): "would settle a proposal the inbox must show",
    ("post", "/v1/corrections/{id}/ack"): "would take a correction off the inbox",
}
#: Operations that answer from what is stored and write nothing a person reads: timed with
#: the GETs, their queries hostile.
READS = {
    ("post", "/v1/search"),
    ("post", "/v1/search/unified"),
    ("post", "/v1/context/bridge"),
    ("post", "/v1/context/user"),
    ("post", "/v1/brief"),
    ("post", "/v1/catch-up"),
    ("post", "/v1/orient"),
}


@pytest.fixture(scope="module")
def lone_api(neo4j_server: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiProcess]:
    """An API of its own with ONE worker: ``/health`` shares the event loop with every page."""
    log = tmp_path_factory.mktemp("lone-api") / "api.log"
    with running_api(log, {"CTXNET_API_KEY_CACHE_SECONDS": "0"}) as process:
        yield process


def on(caller: Caller, api: ApiProcess) -> Caller:
    """``caller`` with its HTTP client on ``api``."""
    return Caller(caller.user_id, caller.key, caller.key_id, caller.client(api.base_url), caller._clients)


async def write_everywhere(document: dict[str, Any], agent: Caller, ids: dict[str, str]) -> list[str]:
    """Every text of :data:`TEXTS`, in turn, through every write the document has, as the
    agent; a field refused (422 naming it) is sent plain instead. Where each text was kept."""
    kept: list[str] = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            content = operation.get("requestBody", {}).get("content", {}).get("application/json")
            skipped = method in ("get", "delete") or (method, path) in NOT_WRITTEN or (method, path) in READS
            if skipped or content is None:
                continue
            url = placed(path, ids)
            plain = fill(document, content["schema"], ids, "Plain words.")
            for name, text in TEXTS.items():
                body = fill(document, content["schema"], ids, text)
                for _ in range(6):
                    answer = await agent.http.request(method, url, json=body)
                    assert answer.status_code < 500, (method, url, name, answer.text[:300])
                    field = answer.json().get("error", {}).get("field") if answer.status_code == 422 else None
                    if not field or field.split(".")[0] not in body or body == plain:
                        break
                    body[field.split(".")[0]] = plain[field.split(".")[0]]
                if answer.status_code < 300:
                    kept.append(f"{method.upper()} {path} {name}")
    return kept


def placed(path: str, ids: dict[str, str]) -> str:
    """``path`` with each parameter naming the user's thing of its kind (one the test does
    not know fails it: teach RESOURCES or NAMED)."""

    def value(m: re.Match[str]) -> str:
        kind = RESOURCES.get(path.split("/")[2]) if m[1] == "id" else NAMED.get(m[1])
        if kind is None:
            pytest.fail(f"a write the test cannot place: {path} (teach tests/support/resources.py)")
        return ids[kind]

    return re.sub(r"\{(\w+)\}", value, path)


async def correct_and_propose_each(person: Caller, agent: Caller) -> None:
    """For each pair of texts (the probe, then changed): an agent's note a person corrects
    (a correction in the inbox) and the agent then writes back (a proposal in the inbox)."""
    names = list(TEXTS)
    for before, after in zip(names, names[1:], strict=False):
        note_id = f"held-{uuid.uuid4().hex[:8]}"
        body = {"id": note_id, "title": "Agent note", "content": TEXTS[before][:20_000], "dedupe": False}
        made = await agent.http.post("/v1/knowledge", json={**body, "type": "fact"})
        if made.status_code != 201:  # past the word limit, or held: a person took that text away
            assert made.status_code in (202, 422), made.text[:300]
            continue
        fixed = await person.http.patch(f"/v1/knowledge/{note_id}", json={"content": TEXTS[after]})
        if fixed.status_code == 422:
            continue
        assert fixed.status_code == 200, fixed.text[:300]
        back = await agent.http.patch(f"/v1/knowledge/{note_id}", json={"content": TEXTS[before]})
        assert back.status_code == 202, back.text[:300]


def desk_pages(ids: dict[str, str], note_ids: list[str]) -> tuple[list[DeskCall], list[str]]:
    """Every GET page of the desk (tests/support/desk_sweep.py places its parameters): each
    note's page, each search of a hostile text; the routes it could not place."""
    app = create_app()
    pages: dict[tuple[str, tuple[tuple[str, str], ...]], DeskCall] = {}
    unplaced: list[str] = []
    for note_id, query in itertools.zip_longest(note_ids, [t[:500] for t in TEXTS.values()]):
        chosen = ids | {"note": note_id or ids["note"], "note2": note_id or ids["note"]}
        calls, missed = desk_calls(app, chosen | {"query": query or "tea"})
        unplaced += missed
        for call in calls:
            if call.method == "GET":
                pages[(call.url, tuple(sorted(call.query.items())))] = call
    return list(pages.values()), sorted(set(unplaced))


@asynccontextmanager
async def signed_in(api: ApiProcess, person: Caller) -> AsyncIterator[httpx.AsyncClient]:
    """A cookie-keeping client of ``api`` signed in to the desk as ``person``."""
    async with desk_client(api.base_url, person.key, timeout=30) as client:
        yield client


async def open_pages(desk: httpx.AsyncClient, pages: list[DeskCall], gone: str) -> None:
    """Each page opened once (the note ``gone`` a person deleted is not in an agent's view:
    404 there)."""
    for call in pages:
        try:
            page = await desk.get(call.url, params=call.query)
        except httpx.TimeoutException:
            pytest.fail(f"{call.url} {call.query} did not answer within {desk.timeout.read} s")
        expected = 404 if call.url.endswith(f"/{gone}") and "agent" in call.query else 200
        why = re.search(r'class="problem"[^>]*>([^<]*)', page.text)
        assert page.status_code in (expected, 303), (call.url, call.query, page.status_code, why and why[1])


async def call_reads(document: dict[str, Any], callers: tuple[Caller, Caller], ids: dict[str, str]) -> None:
    """Every GET of the document as the person (tests/support/sweep.py places it), and each of
    :data:`READS` with a hostile query as the person and as the agent."""
    gets = {path: {m: op for m, op in ops.items() if m == "get"} for path, ops in document["paths"].items()}
    answers, missed = await sweep(document | {"paths": gets}, callers[0], ids, {})
    assert not missed, f"read routes the test cannot place (teach tests/support/resources.py): {missed}"
    for (method, url, _, _), answer in answers:
        assert answer.status_code < 500, (method, url, answer.text[:300])
    for method, path in sorted(READS):
        schema = document["paths"][path][method]["requestBody"]["content"]["application/json"]["schema"]
        body = fill(document, schema, ids, TEXTS["probe at the word limit"])
        for caller in callers:
            answer = await caller.http.request(method, path, json=body)
            assert answer.status_code < 500, (path, answer.text[:300])


@pytest.mark.serial  # it times pages and /health: alone, so no other test's load counts
async def test_no_page_or_read_holds_the_event_loop(make_caller: MakeCaller, lone_api: ApiProcess) -> None:
    person = on(await make_caller(), lone_api)
    agent = on(await make_caller(Role.AGENT, agent_id="helper", user_id=person.user_id), lone_api)
    ids = await seed_everything(person, make_caller, f"hx{uuid.uuid4().hex[:8]}")
    document = httpx.get(f"{lone_api.base_url}/openapi.json", timeout=30).json()
    kept = await write_everywhere(document, agent, ids)
    # The review's probe, as it was found: an agent's note, then every fifth a made a b.
    probe_id = f"probe-{uuid.uuid4().hex[:8]}"
    made = await agent.http.post(
        "/v1/knowledge", json={"id": probe_id, "title": "Probe", "content": probe(170), "type": "fact"}
    )
    assert made.status_code == 201, made.text[:300]
    changed = await agent.http.patch(f"/v1/knowledge/{probe_id}", json={"content": probe(170, changed=True)})
    assert changed.status_code == 200, changed.text[:300]
    await correct_and_propose_each(person, agent)
    for text in TEXTS:  # each text was stored somewhere (in a field without a word limit, at least)
        assert any(k.endswith(f" {text}") for k in kept), (text, kept)
    assert any(k.startswith("PATCH /v1/knowledge/{id} probe") for k in kept), kept

    note_ids = [n["id"] for n in await every_item(person, "/v1/knowledge")]
    ids |= {
        "deleted": next(n for n in note_ids if n.startswith("held-")),
        "title_was": "x",
        "content_was": "x",
        "csrf": "x",
    }
    deleted = await person.http.delete(f"/v1/knowledge/{ids['deleted']}")
    assert deleted.status_code == 204, deleted.text[:300]
    [entry] = (await person.http.get("/v1/mutations", params={"limit": 1})).json()["items"]
    ids["deleted_mutation"] = entry["id"]
    pages, unplaced = desk_pages(ids, note_ids)
    assert not unplaced, f"desk routes the test cannot place (teach tests/support/desk_sweep.py): {unplaced}"
    log = CallLog()
    async with signed_in(lone_api, person) as desk:
        # Each page and every read once first, not timed: a process's first
        # call of a kind plans its queries and warms its model (a second or so on a busy
        # machine, whatever the text); the clock is for what the text costs.
        await open_pages(desk, list({call.template: call for call in pages}.values()), ids["deleted"])
        await call_reads(document, (person, agent), ids)
        log.watch(desk, person.http, agent.http)
        with HealthClock(lone_api.base_url) as health:
            await open_pages(desk, pages, ids["deleted"])
            await call_reads(document, (person, agent), ids)
    pages_took, reads_took = log.slowest("GET /desk"), log.slowest("GET /v1") + log.slowest("POST /v1")
    held = health.held_by(log.calls, HEALTH_SECONDS)
    print(
        f"{len(pages_took)} desk pages, slowest {pages_took[0][0] * 1000:.0f} ms ({pages_took[0][1]}); "
        f"{len(reads_took)} reads, slowest {max(reads_took)[0] * 1000:.0f} ms ({max(reads_took)[1]}); "
        f"/health {len(health.times)} times, slowest {health.worst * 1000:.0f} ms "
        f"({health.held_by(log.calls, health.worst - 0.001)[:1]})"
    )
    assert pages_took[0][0] <= PAGE_SECONDS, pages_took[:5]
    assert not held, f"/health waited over {HEALTH_SECONDS} s while these ran: {held[:5]}"
