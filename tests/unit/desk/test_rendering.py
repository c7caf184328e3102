"""Desk templates render off the event loop: a page through ``base.render`` (a worker
thread), and only the few small templates listed here inline. A new inline render, or a
diff in a template rendered inline, fails this test (issue 45, review N2)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

DESK = Path(__file__).resolve().parents[3] / "api" / "desk"
#: Where a template may render on the event loop, and why that is bounded.
INLINE = {
    ("base.py", "rendered"): "the worker thread's own render (base.render)",
    ("base.py", "problem"): "an error page: a status and a message",
    ("base.py", "fragment"): "htmx fragments: an undo's outcome (ids and a message)",
    ("auth.py", "_signin_page"): "the sign-in form: a token and a message",
}
#: Templates rendered inline; none may show stored text that grows (a diff).
SMALL_TEMPLATES = ("problem.html", "_problem.html", "signin.html", "_undone.html")


class _Renders(ast.NodeVisitor):
    """The functions (innermost) that call ``.render(...)``."""

    def __init__(self) -> None:
        self.within: list[str] = []
        self.found: set[str] = set()

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.within.append(node.name)
        self.generic_visit(node)
        self.within.pop()

    visit_AsyncFunctionDef = visit_FunctionDef  # noqa: N815

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Attribute) and node.func.attr == "render":
            self.found.add(self.within[-1] if self.within else "<module>")
        self.generic_visit(node)


def renders() -> set[tuple[str, str]]:
    """Each (module, innermost function) of api/desk that calls ``<template>.render(...)``."""
    found = set()
    for path in sorted(DESK.glob("*.py")):
        visitor = _Renders()
        visitor.visit(ast.parse(path.read_text(encoding="utf-8")))
        found |= {(path.name, name) for name in visitor.found}
    return found


def test_templates_render_inline_only_where_listed() -> None:
    found = renders()
    assert ("base.py", "rendered") in found, found
    assert found <= set(INLINE), (
        f"a template rendered on the event loop (use base.render): {found - set(INLINE)}"
    )


def test_the_templates_rendered_inline_show_no_diff() -> None:
    partials = {p.name for p in (DESK / "templates").glob("_*.html")} - {"_macros.html"}
    assert partials <= set(SMALL_TEMPLATES), f"a partial not checked here: {partials - set(SMALL_TEMPLATES)}"
    for name in SMALL_TEMPLATES:
        text = (DESK / "templates" / name).read_text(encoding="utf-8")
        assert not re.search(r"show_diff|diff\(|_macros", text), name
