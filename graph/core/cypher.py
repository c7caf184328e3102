"""Loads Cypher statements from the ``cypher`` package: one statement per ``.cypher`` file.

Names are paths without the suffix, e.g. ``cypher_text("queries/core/api_key_by_hash")``.
Files are read once and cached; only values ever reach them, as ``$parameters``.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import LiteralString


@cache
def cypher_text(name: str) -> LiteralString:
    """The statement in ``cypher/<name>.cypher``, comments kept (Neo4j ignores them)."""
    resource = resources.files("cypher").joinpath(*f"{name}.cypher".split("/"))
    text = resource.read_text(encoding="utf-8").strip()
    if not text:
        raise ValueError(f"cypher/{name}.cypher is empty")
    # The text is a file shipped with the package, never user input; mypy treats
    # LiteralString as str, so no cast is needed for it (pyright would want one).
    return text  # type: ignore[return-value,unused-ignore]


def cypher_names(folder: str) -> list[str]:
    """Names of every statement in a folder of the catalog and its subfolders, sorted
    (for ``schema/``, the order it is applied in)."""
    names: list[str] = []
    for entry in resources.files("cypher").joinpath(folder).iterdir():
        if entry.is_dir():
            names.extend(cypher_names(f"{folder}/{entry.name}"))
        elif entry.name.endswith(".cypher"):
            names.append(f"{folder}/{entry.name.removesuffix('.cypher')}")
    return sorted(names)
