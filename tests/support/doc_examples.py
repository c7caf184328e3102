"""The runnable examples of the docs pages, as the pages print them: a test runs a section's
first ```python block, so the page cannot drift from what works."""

from __future__ import annotations

from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"


def example(page: str, heading: str) -> str:
    """The first ```python block under ``heading`` (a line of ``page``, e.g. ``## LangGraph``),
    before the next heading of its level or above; an AssertionError names what is missing."""
    lines = (DOCS / page).read_text(encoding="utf-8").splitlines(keepends=True)
    assert heading + "\n" in lines, f"docs/{page} has no section {heading!r}"
    level = len(heading.split(" ", 1)[0])
    block: list[str] | None = None
    fenced = False
    for line in lines[lines.index(heading + "\n") + 1 :]:
        if line.startswith("```"):
            if block is not None:
                return "".join(block)
            fenced = not fenced
            block = [] if line.strip() == "```python" else None
        elif block is not None:
            block.append(line)
        elif not fenced and line.startswith("#") and len(line.split(" ", 1)[0].strip("#")) == 0:
            assert len(line.split(" ", 1)[0]) > level, f"docs/{page}, {heading!r}: no ```python block"
    raise AssertionError(f"docs/{page}, {heading!r}: no ```python block")
