"""Hostile text for the tests that store it everywhere: the shapes that made CPU work grow
with what an agent wrote (runs of spaces, repeated and alternating tokens, 20,000 characters,
mixed scripts, markup, the review's diff probe), request bodies that carry them in every free
text field of an operation, and a clock on ``/health`` in a process of its own."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from tests.support.sweep import NAMED, example, resolve_schema

#: The longest text any field takes (a note's content).
LONGEST = 20_000
#: How long the clock waits for one ``/health``.
TIMEOUT = 10.0


def probe(n: int, gap: int = 10, changed: bool = False) -> str:
    """The review's probe: ``("a" + " " * gap) * n``; ``changed``, every fifth ``a`` a ``b``
    (a PATCH from one to the other cost the old word diff seconds: its tokens were spaces)."""
    return "".join(("b" if changed and i % 5 == 4 else "a") + " " * gap for i in range(n))


def _repeat(unit: str) -> str:
    return (unit * (LONGEST // len(unit) + 1))[:LONGEST]


#: The texts, in the order they are written: each PATCH diffs one against the one before.
TEXTS = {
    "spaces": "a" + " " * (LONGEST - 2) + "b",
    "probe": probe(170),
    "probe changed": probe(170, changed=True),
    "probe at the word limit": probe(300, gap=65),
    "probe at the word limit, changed": probe(300, gap=65, changed=True),
    "repeated": _repeat("ab "),
    "alternating": _repeat("a b b a "),
    "mixed scripts": _repeat("Émile Иван 漢字 العربية עברית 🙂 "),
    "markup": _repeat('<script>alert(1)</script><b a="{{ 7*7 }}">&amp;</b>{% raw %} '),
}


def is_free_text(schema: dict[str, Any]) -> bool:
    """A string field a person or agent writes freely: no enum, no format, and no pattern but
    "not only blanks" (an id's or a date's pattern starts with ``^``)."""
    return (
        schema.get("type") == "string"
        and "enum" not in schema
        and "format" not in schema
        and not str(schema.get("pattern", "")).startswith("^")
    )


def carries(document: dict[str, Any], schema: dict[str, Any], name: str = "", depth: int = 0) -> bool:
    """Whether a field is, or holds, free text (ids, names of the owner's things and enums not)."""
    resolved = resolve_schema(document, schema)
    if name in NAMED or name == "id" or "enum" in resolved or depth > 8:
        return False
    if is_free_text(resolved):
        return True
    inner = [*resolved.get("properties", {}).items()]
    for key in ("items", "additionalProperties"):
        if isinstance(resolved.get(key), dict):
            inner.append(("", resolved[key]))
    return any(carries(document, s, n, depth + 1) for n, s in inner)


def fill(
    document: dict[str, Any], schema: dict[str, Any], ids: dict[str, str], text: str, name: str = ""
) -> Any:
    """A body for ``schema`` with ``text`` (cut to each field's length) in every free text
    field, optional ones too; the required rest as :func:`example` makes it."""
    resolved = resolve_schema(document, schema)
    if not carries(document, schema, name):
        return example(document, schema, ids, name)
    if is_free_text(resolved):
        return text[: int(resolved.get("maxLength", LONGEST))]
    if "properties" in resolved:
        required = set(resolved.get("required", ()))
        return {
            key: fill(document, field, ids, text, key)
            for key, field in resolved["properties"].items()
            if key in required or carries(document, field, key)
        }
    if isinstance(resolved.get("additionalProperties"), dict):  # a map: one entry of the text
        return {"hostile": fill(document, resolved["additionalProperties"], ids, text)}
    return [fill(document, resolved["items"], ids, text, name)]


class CallLog:
    """When each request of the clients it watches was asked and answered (its body read)."""

    def __init__(self) -> None:
        #: (asked, answered, "METHOD path?query"), times from ``time.perf_counter()``.
        self.calls: list[tuple[float, float, str]] = []
        self._asked: dict[int, float] = {}

    def watch(self, *clients: httpx.AsyncClient) -> None:
        """Log every request of ``clients`` from now on."""
        for client in clients:
            client.event_hooks = {"request": [self._ask], "response": [self._answer]}

    async def _ask(self, request: httpx.Request) -> None:
        self._asked[id(request)] = time.perf_counter()

    async def _answer(self, response: httpx.Response) -> None:
        await response.aread()
        request = response.request
        what = f"{request.method} {request.url.path}" + (
            f"?{request.url.query.decode()[:80]}" if request.url.query else ""
        )
        self.calls.append((self._asked.pop(id(request)), time.perf_counter(), what))

    def slowest(self, prefix: str = "") -> list[tuple[float, str]]:
        """The calls whose ``what`` starts with ``prefix``, slowest first, with their seconds."""
        return sorted(
            ((end - start, what) for start, end, what in self.calls if what.startswith(prefix)), reverse=True
        )


#: The clock's own process: ``GET /health`` over and over until the stop file exists, then
#: each answer's (asked, seconds) as JSON; a timeout counts as the timeout.
_CLOCK = """
import json, pathlib, sys, time
import httpx
url, stop, timeout = sys.argv[1], pathlib.Path(sys.argv[2]), float(sys.argv[3])
seen = []
with httpx.Client(base_url=url, timeout=timeout) as client:
    while not stop.exists():
        started = time.perf_counter()
        try:
            ok = client.get("/health").status_code == 200
        except httpx.TimeoutException:
            ok = False
        seen.append((started, time.perf_counter() - started if ok else timeout))
        time.sleep(0.02)
print(json.dumps(seen))
"""


class HealthClock:
    """Times ``GET /health`` over and over from a process of its own (so nothing the test
    does delays it; ``time.perf_counter`` is the system's monotonic clock, shared) while the
    block runs: :attr:`worst` is the slowest answer, seconds."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        #: Each answer: when it was asked (``time.perf_counter()``) and how long it took.
        self.times: list[float] = []
        self.asked: list[float] = []
        self._folder = tempfile.TemporaryDirectory()
        self._stop = Path(self._folder.name) / "stop"
        self._process: subprocess.Popen[str] | None = None

    def __enter__(self) -> HealthClock:
        command = [sys.executable, "-c", _CLOCK, self.base_url, str(self._stop), str(TIMEOUT)]
        self._process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._process is not None
        self._stop.touch()
        out, _ = self._process.communicate(timeout=TIMEOUT + 30)
        self._folder.cleanup()
        seen = json.loads(out) if out.strip() else []
        self.asked, self.times = [a for a, _ in seen], [t for _, t in seen]

    @property
    def worst(self) -> float:
        """The slowest ``/health`` answer seen."""
        return max(self.times, default=0.0)

    def held_by(self, calls: list[tuple[float, float, str]], over: float) -> list[tuple[float, str]]:
        """Each ``/health`` slower than ``over`` seconds, with the calls (start, end, what)
        that ran while it waited: the suspects."""
        found = []
        for asked, took in zip(self.asked, self.times, strict=True):
            if took > over:
                during = [what for start, end, what in calls if start < asked + took and end > asked]
                found.append((took, " | ".join(during)))
        return sorted(found, reverse=True)
