"""Every write to a user's memory goes through the per-user write gate (graph/core/gate.py).

Neo4j refuses writes in a read transaction, so the only ways to write are the database's
write methods; this test reads the code and fails on a call of one of them anywhere but
the places listed below, each with the reason it may write without the user's lock.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
WRITE_METHODS = {"write", "write_tx", "run_autocommit"}

#: Modules that may call the database's write methods directly, and why.
ALLOWED = {
    "graph/core/gate.py": "the gate itself: it opens the write transaction and takes the lock",
    "graph/core/db.py": "defines the write methods",
    "graph/core/schema.py": "schema statements and re-embedding across all users (guarded per note)",
    "graph/core/principals.py": "API keys: an administrator's act, not a user's memory",
    "graph/core/jobs.py": "a job's own status and lease (creating one is gated)",
    "graph/core/ratelimit.py": "a key's request counter, not memory; the user's lock would queue reads",
    "graph/continuity/catchup.py": "the caller's last access, not memory (catch_up takes no seq)",
}


def _is_database(receiver: ast.expr) -> bool:
    """``db.write(...)``, ``self._db.write(...)``, ``database.write_tx(...)``: the receiver is a
    :class:`~graph.core.db.Database` by the house's naming (files have ``.write`` too)."""
    return re.search(r"(^|[._])(db|database)$", ast.unparse(receiver)) is not None


def _direct_writes(source: str, where: str) -> list[str]:
    tree = ast.parse(source)
    return [
        f"{where}:{node.lineno} {ast.unparse(node.func)}()"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in WRITE_METHODS
        and _is_database(node.func.value)
    ]


def test_no_code_writes_around_the_gate() -> None:
    found = []
    for folder in ("graph", "api", "ctxnet"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            where = str(path.relative_to(ROOT))
            if where not in ALLOWED:
                found.extend(_direct_writes(path.read_text(encoding="utf-8"), where))
    assert not found, "writes that bypass the write gate (use WriteGate.write / .run):\n" + "\n".join(found)


def test_the_check_sees_a_bypass() -> None:
    # users.py forgets a user through the gate (`gate.write(...)`), which passes ...
    users = ROOT / "graph" / "core" / "users.py"
    assert _direct_writes(users.read_text(encoding="utf-8"), "users.py") == []
    # ... while the database's own write methods, as they were called before the gate, do not;
    # nor do files' write methods count.
    code = (
        "async def f(self, db, handle):\n"
        "    await db.write('q')\n"
        "    await self._db.write_tx(None)\n"
        "    handle.write('text')\n"
    )
    assert _direct_writes(code, "sample.py") == ["sample.py:2 db.write()", "sample.py:3 self._db.write_tx()"]
