"""The scope rule lives in the services (graph/core/scopes.py), so every front end inherits it.

A key with an entity scope reaches only what its scope holds. This test reads the code of
``graph`` and fails on a public service function that takes a :class:`Principal` and neither
refuses a scoped key (``require_unscoped(principal, ...)``) nor narrows by its scope (reads
``principal.scope``, ``principal.sees(...)``, ``principal.sees_agent(...)`` or
``principal.agent_view(...)``), itself or through a function it hands the principal to (in its
own module, or imported by name), unless it is listed below with its reason. A route
declaration is not enough: the desk, MCP and the CLI call the services.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from graph.core.errors import Forbidden
from graph.core.principals import Principal, Role, Scope
from graph.core.scopes import require_unscoped

ROOT = Path(__file__).resolve().parents[3]
#: What a function does with a principal's scope that counts as keeping the rule.
NARROWING = {"scope", "sees", "sees_agent", "agent_view"}
REFUSAL = "require_unscoped"

SHARED = "skills are procedures every key of the user shares"
HANDED = "hands the principal to NoteCreation or NoteEdits, which narrow (outside the scope: 404)"

#: Public functions that take a principal and do neither, and why that is right.
LISTED = {
    "graph/core/journal.py:record_many": "the actor of a write, journaled: reads and reaches nothing",
    "graph/core/journal.py:record": "the actor of a write, journaled: reads and reaches nothing",
    "graph/core/journal.py:inline": "the actor of a write, journaled: reads and reaches nothing",
    "graph/core/ratelimit.py:RateLimiter.take": "counts the key's requests; reads no memory",
    "graph/continuity/skills.py:SkillService.list_skills": SHARED,
    "graph/continuity/skills.py:SkillService.get": SHARED,
    "graph/continuity/skills.py:SkillService.load": SHARED,
    "graph/continuity/skills.py:written_by": "compares a record's author with the principal; reads nothing",
    "graph/knowledge/corrections.py:is_agent": "the principal's role; reads nothing",
    "graph/knowledge/corrections.py:read_stored": (
        "inside a write its caller already narrowed: the ids it reads are the caller's"
    ),
    "graph/knowledge/corrections.py:record": "inside a write its caller already narrowed; records the actor",
    "graph/knowledge/corrections.py:propose": "inside a write its caller already narrowed; records the actor",
    "graph/knowledge/edges.py:link": "inside a write its caller already narrowed (note create, proposals)",
    "graph/knowledge/edges.py:person_word": (
        "inside an edge write its caller already narrowed (connect, disconnect; undo refuses a "
        "scoped key): records a person's word on the edge"
    ),
    "graph/knowledge/edges.py:held_statuses": "inside a write its caller already narrowed (note edits)",
    "graph/knowledge/note_edits.py:NoteEdits.update": (
        "reads the note first through the read it is given (NoteService.get, which narrows): "
        "a note outside the scope is a 404 before anything is written"
    ),
    "graph/knowledge/notes.py:NoteService.create": HANDED,
    "graph/knowledge/notes.py:NoteService.invalidate": HANDED,
    "graph/knowledge/notes.py:NoteService.update": HANDED,
    "graph/knowledge/notes.py:NoteService.delete": HANDED,
    "graph/knowledge/undo_checks.py:guard": "a check inside undo, which refuses a scoped key",
}


@dataclass
class Function:
    """One function or method of ``graph`` that takes a principal."""

    where: str
    name: str
    public: bool
    node: ast.FunctionDef | ast.AsyncFunctionDef
    principals: set[str]
    #: The functions it hands a principal to, as (module, name) pairs.
    hands_to: set[tuple[str, str]] = field(default_factory=set)
    direct: bool = False


def _principal_params(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
    return {
        a.arg
        for a in arguments
        if a.annotation is not None and re.search(r"\bPrincipal\b", ast.unparse(a.annotation))
    }


def _imports(tree: ast.Module) -> tuple[dict[str, tuple[str, str]], dict[str, str]]:
    """Names imported from graph modules: a function (name -> (module, name)), a module
    (alias -> module)."""
    names: dict[str, tuple[str, str]] = {}
    modules: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("graph"):
            base = node.module.replace(".", "/")
            for alias in node.names:
                module = f"{base}/{alias.name}.py"
                if (ROOT / module).exists():
                    modules[alias.asname or alias.name] = module
                else:
                    names[alias.asname or alias.name] = (f"{base}.py", alias.name)
    return names, modules


def _read(where: str, source: str) -> list[Function]:
    """Every function of a module that takes a principal, with what it does with it."""
    tree = ast.parse(source)
    imported, modules = _imports(tree)
    found: list[Function] = []

    def visit(parent: ast.AST, prefix: str, public: bool) -> None:
        for child in ast.iter_child_nodes(parent):
            if isinstance(child, ast.ClassDef):
                visit(child, f"{child.name}.", public and not child.name.startswith("_"))
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                principals = _principal_params(child)
                if principals:
                    name = prefix + child.name
                    found.append(
                        Function(where, name, public and not child.name.startswith("_"), child, principals)
                    )

    visit(tree, "", True)
    for function in found:
        for node in ast.walk(function.node):
            if (
                isinstance(node, ast.Attribute)
                and node.attr in NARROWING
                and isinstance(node.value, ast.Name)
                and node.value.id in function.principals
            ):
                function.direct = True
            if not isinstance(node, ast.Call):
                continue
            handed = [*node.args, *(k.value for k in node.keywords)]
            if not any(isinstance(a, ast.Name) and a.id in function.principals for a in handed):
                continue
            callee = node.func
            if isinstance(callee, ast.Name):
                if callee.id == REFUSAL:
                    function.direct = True
                function.hands_to.add(imported.get(callee.id, (where, callee.id)))
            elif isinstance(callee, ast.Attribute):
                receiver = callee.value
                if isinstance(receiver, ast.Name) and receiver.id in modules:
                    function.hands_to.add((modules[receiver.id], callee.attr))
                elif isinstance(receiver, ast.Name) and receiver.id in ("self", "cls"):
                    function.hands_to.add((where, callee.attr))
    return found


def unkept(sources: dict[str, str]) -> list[str]:
    """The public functions of ``sources`` (path -> code) that take a principal and keep no
    scope rule, as ``path:Qualified.name``."""
    functions = [f for where, source in sources.items() for f in _read(where, source)]
    by_name: dict[tuple[str, str], list[Function]] = {}
    for f in functions:
        by_name.setdefault((f.where, f.name.rsplit(".", 1)[-1]), []).append(f)
    kept = {id(f) for f in functions if f.direct}
    grew = True
    while grew:  # a function keeps the rule when one it hands the principal to does
        grew = False
        for f in functions:
            if id(f) in kept:
                continue
            if any(all(id(g) in kept for g in by_name[t]) for t in f.hands_to if t in by_name):
                kept.add(id(f))
                grew = True
    return [f"{f.where}:{f.name}" for f in functions if f.public and id(f) not in kept]


def _graph_sources() -> dict[str, str]:
    return {
        str(path.relative_to(ROOT)): path.read_text(encoding="utf-8")
        for path in sorted((ROOT / "graph").rglob("*.py"))
    }


def test_every_service_function_taking_a_principal_keeps_the_scope_rule() -> None:
    missing = [name for name in unkept(_graph_sources()) if name not in LISTED]
    assert not missing, (
        "service functions that take a principal but neither refuse a scoped key "
        "(graph.core.scopes.require_unscoped) nor narrow by its scope (principal.scope, .sees, "
        ".sees_agent, .agent_view), nor are listed in LISTED with their reason:\n" + "\n".join(missing)
    )


def test_every_listed_function_still_exists_and_still_needs_its_entry() -> None:
    sources = _graph_sources()
    unkept_now = set(unkept(sources))
    stale = [name for name in LISTED if name not in unkept_now]
    assert not stale, f"listed but gone, or keeping the rule by now (drop the entry): {stale}"


def test_the_check_sees_a_method_without_the_rule() -> None:
    code = (
        "from graph.core.scopes import require_unscoped\n"
        "class Things:\n"
        "    async def refused(self, principal: Principal) -> None:\n"
        "        require_unscoped(principal, 'things')\n"
        "    async def narrowed(self, principal: Principal) -> None:\n"
        "        await self._db.read('q', scope=Scope.of(principal.scope))\n"
        "    async def handed(self, principal: Principal) -> None:\n"
        "        await self._read(principal)\n"
        "    async def _read(self, principal: Principal) -> None:\n"
        "        if principal.sees('n', []): pass\n"
        "    async def forgot(self, principal: Principal, thing_id: str) -> None:\n"
        "        await self._db.read('q', userId=principal.user_id, id=thing_id)\n"
        "    async def handed_to_nothing(self, principal: Principal) -> None:\n"
        "        await self._unchecked(principal)\n"
        "    async def _unchecked(self, principal: Principal) -> None:\n"
        "        pass\n"
        "    async def other_name(self, principal: Principal) -> None:\n"
        "        other = principal\n"
        "        print(other.scope)\n"
    )
    assert unkept({"sample.py": code}) == [
        "sample.py:Things.forgot",
        "sample.py:Things.handed_to_nothing",
        "sample.py:Things.other_name",
    ]


def test_the_refusal_names_the_keys_scope_and_what_was_asked() -> None:
    require_unscoped(Principal(user_id="u", role=Role.HUMAN), "the profile")  # unscoped: nothing
    scoped = Principal(user_id="u", role=Role.AGENT, agent_id="a", scope=Scope(tags=("billing",)))
    with pytest.raises(Forbidden) as refused:
        require_unscoped(scoped, "the profile")
    assert refused.value.field == "scope"
    assert "tag:billing" in refused.value.message and "the profile" in refused.value.message
