"""The house's layers hold: no import circle among the product's modules, and no import back up.

``ctxnet`` (the CLI, client, importer) sits on ``api`` (routes, converters), which sits on
``graph`` (the services), whose domains are layered core → knowledge → conversations →
continuity → project → io (a whole user out and back); at the bottom, ``ctxnet.wire`` (the
wire contract: request and response models, ids, cursors, errors, vocabulary, limits), which
all of them may import and which imports no project package, and nothing outside the standard
library but pydantic. This test reads every import of ``graph``, ``api`` and ``ctxnet`` with
:mod:`ast` (those under ``if TYPE_CHECKING:`` and inside functions too: a deferred import is
still an arrow) and fails on a circle or an arrow against that order.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PACKAGES = ("graph", "api", "ctxnet")
#: Lower layers first: a module may import from its own layer and the ones before it.
LAYERS = ("ctxnet.wire", "graph", "api", "ctxnet")
#: The wire contract: the bottom layer, which a client loads without the server.
WIRE = "ctxnet.wire"
#: What the wire may import besides the standard library and itself.
WIRE_MAY_IMPORT = frozenset({"pydantic", "pydantic_core"})
GRAPH_DOMAINS = ("core", "knowledge", "conversations", "continuity", "project", "io")


def _modules() -> dict[str, Path]:
    """Every module of the product packages by its dotted name (a package by its own name)."""
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def _imports(name: str, source: str, modules: set[str], *, is_package: bool = False) -> dict[str, int]:
    """The product modules ``name`` imports, each with the line of its first import."""
    package = name if is_package else name.rpartition(".")[0]
    targets: dict[str, int] = {}

    def add(target: str, line: int) -> None:
        # ``from a.b import c`` names the module a.b.c when there is one, else a.b.
        while target and target not in modules:
            target = target.rpartition(".")[0]
        if target and target != name:
            targets.setdefault(target, line)

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                add(f"{base}.{alias.name}", node.lineno)
    return targets


def _graph() -> tuple[dict[str, dict[str, int]], dict[str, Path]]:
    modules = _modules()
    names = set(modules)
    return {
        name: _imports(name, path.read_text(encoding="utf-8"), names, is_package=path.name == "__init__.py")
        for name, path in modules.items()
    }, modules


def _rank(module: str) -> tuple[int, int]:
    """Where a module stands: its package's layer, then (in graph) its domain's."""
    parts = module.split(".")
    wire = module == WIRE or module.startswith(WIRE + ".")
    layer = LAYERS.index(WIRE if wire else parts[0])
    domain = GRAPH_DOMAINS.index(parts[1]) if parts[0] == "graph" and parts[1:2] != [] else -1
    return layer, domain


def _arrows_up(imports: dict[str, dict[str, int]], modules: dict[str, Path]) -> list[str]:
    found = []
    for source, targets in sorted(imports.items()):
        for target, line in sorted(targets.items()):
            if _rank(target) > _rank(source):
                where = modules[source].relative_to(ROOT)
                found.append(f"{where}:{line} {source} imports {target}")
    return found


def _circles(imports: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in imports.get(module, {}):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for module in sorted(imports):
        if module not in index:
            visit(module)
    return sorted(components)


def test_no_import_circle() -> None:
    imports, _ = _graph()
    circles = _circles(imports)
    assert not circles, "modules that import each other (directly or round a circle):\n" + "\n".join(
        " <-> ".join(c) for c in circles
    )


def test_no_import_back_up_a_layer() -> None:
    imports, modules = _graph()
    found = _arrows_up(imports, modules)
    assert not found, (
        "imports against the layers (ctxnet → api → graph → ctxnet.wire; graph: "
        + " → ".join(reversed(GRAPH_DOMAINS))
        + "):\n"
        + "\n".join(found)
    )


def test_the_checks_see_a_circle_and_an_arrow_up() -> None:
    imports = {
        "ctxnet.a": {"ctxnet.b": 1},
        "ctxnet.b": {"ctxnet.c": 1},
        "ctxnet.c": {"ctxnet.a": 1},
        "graph.core.x": {"graph.core.y": 1},
        "graph.core.y": {},
    }
    assert _circles(imports) == [["ctxnet.a", "ctxnet.b", "ctxnet.c"]]
    upward = {
        "graph.core.x": {"graph.knowledge.y": 3},
        "api.r": {"ctxnet.z": 4, "graph.project.p": 5},
        "graph.knowledge.y": {"graph.core.x": 6},
        "ctxnet.wire.w": {"graph.core.x": 7, "ctxnet.wire.v": 8},
        "graph.core.v": {"ctxnet.wire.v": 9},
    }
    paths = {m: ROOT / (m.replace(".", "/") + ".py") for m in upward}
    paths |= {"ctxnet.z": ROOT / "ctxnet/z.py", "graph.project.p": ROOT / "graph/project/p.py"}
    assert _arrows_up(upward, paths) == [
        "api/r.py:4 api.r imports ctxnet.z",
        "ctxnet/wire/w.py:7 ctxnet.wire.w imports graph.core.x",
        "graph/core/x.py:3 graph.core.x imports graph.knowledge.y",
    ]


def test_imports_resolve_to_modules() -> None:
    # ``from graph.core import db`` names the module graph.core.db; ``from graph.core.db import
    # Database`` names it too; a relative import is read from its package.
    modules = {"graph", "graph.core", "graph.core.db", "graph.core.sample", "graph.core.gate"}
    code = "from graph.core import db\nfrom graph.core.db import Database\nfrom . import gate\nimport os\n"
    assert _imports("graph.core.sample", code, modules) == {"graph.core.db": 1, "graph.core.gate": 3}


def _top_level_imports(source: str) -> dict[str, int]:
    """The top-level packages a module imports by absolute name, each with its first line."""
    found: dict[str, int] = {}
    for node in ast.walk(ast.parse(source)):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [node.module]
        for name in names:
            found.setdefault(name.partition(".")[0], node.lineno)
    return found


def test_the_wire_imports_only_the_standard_library_and_pydantic() -> None:
    # A client loads the wire without the server's dependencies: nothing of graph, api or the
    # rest of ctxnet (held above), and no third-party package but pydantic.
    modules = _modules()
    found = []
    for name, path in sorted(modules.items()):
        if not (name == WIRE or name.startswith(WIRE + ".")):
            continue
        for package, line in _top_level_imports(path.read_text(encoding="utf-8")).items():
            # ``ctxnet``: the wire itself (an arrow to the rest of ctxnet is the layers' test's).
            if package not in sys.stdlib_module_names and package not in WIRE_MAY_IMPORT | {"ctxnet"}:
                found.append(f"{path.relative_to(ROOT)}:{line} imports {package}")
    assert not found, "the wire imports more than the standard library and pydantic:\n" + "\n".join(found)
