"""Small rooms: no module of the product, its tests or its benchmarks grows past about 450
lines (a file that does is split along a seam a reader would guess, as docs/layout.md shows)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
FOLDERS = ("graph", "api", "ctxnet", "cypher", "tests", "bench")
#: "About 450": a few lines over is a room, not a hall.
MOST_LINES = 460


def test_no_module_past_about_450_lines() -> None:
    sizes = {
        str(path.relative_to(ROOT)): len(path.read_text(encoding="utf-8").splitlines())
        for folder in FOLDERS
        for path in (ROOT / folder).rglob("*.py")
    }
    assert sizes, "no modules found"
    too_long = {name: lines for name, lines in sorted(sizes.items()) if lines > MOST_LINES}
    assert not too_long, f"split these (at most {MOST_LINES} lines): {too_long}"
