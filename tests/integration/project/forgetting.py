"""Every read path a person or an agent has, asked for what a forget took: search in every
mode and depth (now, ``asOf`` and ``asKnownAt``), unified search, recall, the bridge, brief,
orient, catch_up, every GET of the live OpenAPI document (lists to their last page, each
thing's own routes by its id, the journal and corrections by target), every GET page of the
desk, and both exports. Each answer is read as text a forget compares (every JSON string,
nested JSON read as what it holds, a page's HTML as what it shows, all folded) and searched
for every forgotten text; the echo of what was asked is taken out first."""

from __future__ import annotations

import asyncio
import html
import io
import json
import re
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx

from api.app import create_app
from ctxnet.client import AsyncClient
from ctxnet.io.exporter import run_export
from ctxnet.io.whole import export_all
from tests.integration.conftest import Caller
from tests.integration.project.export_records import fold, strings
from tests.support.desk import desk_client
from tests.support.desk_sweep import _params, desk_routes
from tests.support.resources import RESOURCES

#: Put around what is asked, so its echo in an answer is told from a hit.
MARK = "qxvzq"
MODES = ("hybrid", "vector", "fulltext")
#: GET routes not walked here, and why.
NOT_WALKED = {
    "/health": "no user data",
    "/ready": "no user data",
    "/metrics": "no user data",
    "/v1/export/all": "read through ctxnet's own export (probe_exports)",
    "/v1/restore": "a restore's state",
    "/v1/jobs/{id}": "a job's status and counts, never text",
}
#: Path parameters other than ``{id}``, by the kind of thing they name.
OTHER_NAMES = {"slug": "page"}
#: Query parameters given values (others are left out): the times asked, and one thing's id.
TIMED = ("asOf", "asKnownAt")


def folded_text(answer: httpx.Response) -> str:
    """An answer as the text it shows, folded: every JSON string (nested JSON too, keys
    included), or a page's text without its markup."""
    kind = answer.headers.get("content-type", "")
    if "json" in kind and answer.content:
        return fold("\n".join(strings(answer.json())))
    if "html" in kind:
        shown = html.unescape(re.sub(r"<[^>]*>", "", answer.text))
        return fold(re.sub(r"\s+", " ", shown))
    return fold(answer.text)


@dataclass
class Probe:
    """Forgotten texts, and what the read paths showed of them."""

    needles: list[str]
    #: Texts that stay: each family of paths must show some (or it could not show a leak).
    controls: list[str] = field(default_factory=list)
    calls: int = 0
    seen: list[str] = field(default_factory=list)
    #: The families of paths that showed a control text.
    shown: set[str] = field(default_factory=set)
    #: Each needle found: by the family of paths, one call that showed it.
    found: dict[str, dict[str, str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._folded = sorted({fold(re.sub(r"\s+", " ", n)) for n in self.needles if n.strip()})

    def look(self, where: str, text: str, asked: str | None = None, family: str = "") -> None:
        """Search ``text`` (folded) for every needle, the echo of ``asked`` taken out (spaces
        and line breaks read as one space: an answer may say what it was asked on one line)."""
        text = re.sub(r"\s+", " ", text)
        if asked is not None:
            text = text.replace(re.sub(r"\s+", " ", fold(asked)), " ")
        if any(fold(c) in text for c in self.controls):
            self.shown.add(family or where)
        for needle in self._folded:
            at = text.find(needle)
            if at >= 0:
                self.found.setdefault(needle, {}).setdefault(family or where, where)
                self.seen.append(
                    f"{where}: {needle!r} in ...{text[max(0, at - 200) : at + 100 + len(needle)]}"
                )

    def summary(self) -> list[str]:
        """Each forgotten text found: the families of paths that showed it, and one call."""
        return [
            f"{n!r} shown by {sorted(by)}, e.g. {next(iter(by.values()))}"
            for n, by in sorted(self.found.items())
        ]

    async def ask(
        self,
        family: str,
        http: httpx.AsyncClient,
        method: str,
        path: str,
        asked: str | None = None,
        **kwargs: Any,
    ) -> httpx.Response:
        """One call, its answer looked through."""
        answer = await http.request(method, path, **kwargs)
        self.calls += 1
        assert answer.status_code < 500, (method, path, kwargs, answer.status_code, answer.text[:500])
        where = f"{family} {method} {path} {kwargs.get('params') or kwargs.get('json') or ''}"
        self.look(where[:300], folded_text(answer), asked, family.split(" ")[0])
        return answer


def marked(text: str) -> str:
    """``text`` between two :data:`MARK` words, as it is asked."""
    return f"{MARK} {text} {MARK}"


async def probe_reads(probe: Probe, caller: Caller, asks: list[str], times: list[str]) -> None:
    """Every read that takes free text, for each of ``asks`` (four at a time): search in each
    mode at depths 0-3 (with and without superseded notes), at each of ``times`` as ``asOf`` and
    ``asKnownAt``, unified search, recall, the bridge, brief, orient; and catch_up."""
    http = caller.http

    async def one(text: str) -> None:
        q = marked(text)
        for mode in MODES:
            for depth in range(4):
                body = {
                    "query": q,
                    "mode": mode,
                    "topK": 20,
                    "maxDepth": depth,
                    "includeSuperseded": depth % 2 == 1,
                    "includeEnded": depth >= 2,
                }
                await probe.ask("search", http, "POST", "/v1/search", q, json=body)
            for at in times:
                for clock in TIMED:
                    body = {"query": q, "mode": mode, "topK": 20, clock: at, "includeSuperseded": True}
                    await probe.ask(f"search {clock}", http, "POST", "/v1/search", q, json=body)
        body = {"query": q, "layers": ["knowledge", "memory", "docs"], "topK": 20}
        await probe.ask("unified", http, "POST", "/v1/search/unified", q, json=body)
        await probe.ask("recall", http, "POST", "/v1/context/user", q, json={"query": q, "limit": 20})
        await probe.ask(
            "bridge", http, "POST", "/v1/context/bridge", q, json={"topic": q, "agentId": "helper"}
        )
        await probe.ask("brief", http, "POST", "/v1/brief", q, json={"task": q, "tokenBudget": 8000})
        await probe.ask("orient", http, "POST", "/v1/orient", q, json={"goal": q})

    for start in range(0, len(asks), 4):
        await asyncio.gather(*(one(text) for text in asks[start : start + 4]))
    await probe.ask("catch_up", http, "POST", "/v1/catch-up", json={"since": "2000-01-01T00:00:00Z"})


async def probe_document(
    probe: Probe,
    caller: Caller,
    document: dict[str, Any],
    things: dict[str, list[str]],
    asks: list[str],
    times: list[str],
) -> list[str]:
    """Every GET of the live document: lists paged to their end (at ``times`` too, where they
    take them), each thing's routes by its id, the journal and corrections of each thing. The
    routes it cannot place (teach :data:`RESOURCES` or :data:`OTHER_NAMES`)."""
    unplaced = []
    for path, operations in document["paths"].items():
        operation = operations.get("get")
        if operation is None or path in NOT_WALKED:
            continue
        names = {p["name"] for p in operation.get("parameters", []) if p["in"] == "query"}
        in_path = [p["name"] for p in operation.get("parameters", []) if p["in"] == "path"]
        if len(in_path) > 1:
            unplaced.append(path)
            continue
        kind = (
            (RESOURCES.get(path.split("/")[2]) if in_path == ["id"] else OTHER_NAMES.get(in_path[0]))
            if in_path
            else None
        )
        if in_path and kind is None:
            unplaced.append(path)
            continue
        for value in things.get(kind, []) if kind else [None]:
            url = path.replace("{" + in_path[0] + "}", value) if value else path
            variants: list[dict[str, Any]] = [{}] + [{c: t} for c in TIMED if c in names for t in times]
            variants += [{"query": marked(a)} for a in asks[:3] if "query" in names]
            variants += [{"targetId": t} for t in things.get("target", []) if "targetId" in names]
            for params in variants:
                await _pages(probe, caller.http, url, params, "cursor" in names, params.get("query"))
    return unplaced


async def _pages(
    probe: Probe, http: httpx.AsyncClient, url: str, params: dict[str, Any], paged: bool, asked: str | None
) -> None:
    cursor = None
    for _ in range(100):
        sent = params | ({"limit": 100} if paged else {}) | ({"cursor": cursor} if cursor else {})
        answer = await probe.ask("api", http, "GET", url, asked, params=sent)
        cursor = answer.json().get("nextCursor") if paged and answer.status_code == 200 else None
        if not cursor:
            return
    raise AssertionError(f"{url} {params}: more than 100 pages")


async def probe_exports(probe: Probe, caller: Caller, base_url: str) -> str:
    """``ctxnet export`` and ``ctxnet export --all`` of the user; the whole export's text."""
    async with AsyncClient(base_url, caller.key) as client:
        out = io.StringIO()
        await run_export(client, out)
        probe.look("export", _text(out.getvalue()), family="export")
        whole = io.StringIO()
        await export_all(client, whole)
    probe.calls += 2
    probe.look("export --all", _text(whole.getvalue()), family="export --all")
    return whole.getvalue()


def _text(jsonl: str) -> str:
    return fold("\n".join(s for line in jsonl.splitlines() for s in strings(json.loads(line))))


@asynccontextmanager
async def desk_of(base_url: str, person: Caller) -> AsyncIterator[httpx.AsyncClient]:
    """A cookie-keeping client signed in to the desk as ``person``."""
    async with desk_client(base_url, person.key, timeout=60) as client:
        yield client


#: How the desk's GET parameters are placed: on the user's things of a kind, the texts asked,
#: each agent's view and the whole user's, or left out.
DESK_PLACES = {"note_id": "note", "session": "session", "q": "ask", "agent": "agent"}
DESK_UNSET = {"layer", "kind", "since", "until", "cursor"}


async def probe_desk(
    probe: Probe, base_url: str, person: Caller, things: dict[str, list[str]], asks: list[str]
) -> list[str]:
    """Every GET page of the desk (each note's page, each session, each search, the timeline
    followed to its oldest page), as the whole user and as each agent's view; the parameters
    it cannot place (teach :data:`DESK_PLACES`)."""
    unplaced: list[str] = []
    values: dict[str, list[Any]] = {
        "note": things.get("note", []),
        "session": [None, *things.get("session", [])],
        "ask": [marked(a) for a in asks],
        "agent": [None, *things.get("agent", [])],
    }
    async with desk_of(base_url, person) as desk:
        for method, path, route in desk_routes(create_app()):
            if method != "GET":
                continue
            in_path, in_query, _ = _params(route.dependant)
            unknown = [n for n in in_path + in_query if n not in DESK_PLACES and n not in DESK_UNSET]
            if unknown:
                unplaced.append(f"{path}: {unknown}")
                continue
            for combo in _combos(
                [(n, values[DESK_PLACES[n]]) for n in in_path + in_query if n in DESK_PLACES]
            ):
                url = path
                for name in in_path:
                    url = url.replace("{" + name + "}", str(combo[name]))
                query = {n: v for n, v in combo.items() if n in in_query and v is not None}
                await _desk_pages(probe, desk, url, query, query.get("q"))
    return unplaced


async def _desk_pages(
    probe: Probe, desk: httpx.AsyncClient, url: str, query: dict[str, Any], asked: str | None
) -> None:
    for _ in range(200):
        page = await probe.ask("desk", desk, "GET", url, asked, params=query)
        older = re.search(r'href="([^"]*cursor=[^"]*)"[^>]*>Older entries', page.text)
        if older is None:
            return
        link = httpx.URL(html.unescape(older.group(1)))
        url, query = link.path, dict(link.params)
    raise AssertionError(f"{url}: more than 200 pages")


def _combos(choices: Iterable[tuple[str, list[Any]]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{}]
    for name, options in choices:
        out = [combo | {name: option} for combo in out for option in options]
    return out
