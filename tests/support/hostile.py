"""Hostile text for the tests that store it everywhere: the shapes that made CPU work grow
with what an agent wrote (runs of spaces, repeated and alternating tokens, 20,000 characters,
mixed scripts, markup, the review's diff probe), request bodies that carry them in every free
text field of an operation, and a clock on ``/health`` in a thread of its own."""

from __future__ import annotations

import threading
import time
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


class HealthClock:
    """Times ``GET /health`` over and over from a thread of its own (so the test's own loop
    does not delay it) while the block runs: :attr:`worst` is the slowest answer, seconds."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        #: Each answer: when it was asked (``time.perf_counter()``) and how long it took.
        self.times: list[float] = []
        self.asked: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        with httpx.Client(base_url=self.base_url, timeout=TIMEOUT) as client:
            while not self._stop.is_set():
                started = time.perf_counter()
                try:
                    ok = client.get("/health").status_code == 200
                except httpx.TimeoutException:
                    ok = False  # a loop held past the timeout: counted as the timeout
                self.asked.append(started)
                self.times.append(time.perf_counter() - started if ok else TIMEOUT)
                self._stop.wait(0.02)

    def __enter__(self) -> HealthClock:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=120)

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
