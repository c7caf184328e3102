"""The forget's caseless text match on the real Neo4j: the statements' expression
(``graph/core/folding.py`` ``CYPHER_FOLD``) gives Python's caseless form of every code point
but those listed as ``RARE``, which the statements hand to Python; and every statement that
compares text writes the expression as the module states it."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from graph.core.db import Database
from graph.core.folding import CYPHER_FOLD, RARE, cypher_folds, fold

pytestmark = pytest.mark.integration

CYPHER = Path(__file__).resolve().parents[3] / "cypher"


def _is_rare(code: int) -> bool:
    return any(a <= code <= b for a, b in RARE)


async def test_every_code_point_folds_as_python_folds_it_or_is_rare(db: Database) -> None:
    codes = [c for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF]
    wrong: list[str] = []
    for start in range(0, len(codes), 100_000):
        chunk = codes[start : start + 100_000]
        rows = await cypher_folds(db, [chr(c) for c in chunk])
        for code, (folded, rare) in zip(chunk, rows, strict=True):
            assert rare == _is_rare(code), hex(code)
            if not rare and folded != fold(chr(code)):
                wrong.append(f"U+{code:04X} {chr(code)!r}: {folded!r}, not {fold(chr(code))!r}")
    assert not wrong, f"{len(wrong)} code points fold otherwise in Neo4j: {wrong[:20]}"


async def test_strings_in_many_scripts_fold_as_python_folds_them(db: Database) -> None:
    """Whole strings, where context counts (a final sigma) and forms compose."""
    rng = random.Random(46)
    alphabet = "ÉéØøßẞİıΣσςΐЖжИванΣοφίαΑΘΗΝΑ東京ﬁﬀⅫ①ＡＢＣabcXYZ '\"\\\n-"
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 30))) for _ in range(3_000)]
    texts += ["ΟΔΥΣΣΕΥΣ", "Straße", "İstanbul", "ﬁle", "Émile Østergård", "ΣΟΦΊΑΣ ΣΟΦΊΑ"]
    rows = await cypher_folds(db, texts)
    assert [r[0] for r in rows] == [fold(t) for t in texts]


def test_every_statement_that_compares_text_writes_the_one_expression() -> None:
    """A statement that folds text folds it as the module states (and as the tests above
    hold): a copy that drifted would miss text the others find."""
    users = {p: p.read_text(encoding="utf-8") for p in CYPHER.rglob("*.cypher")}
    users = {p: text for p, text in users.items() if "toLower(normalize(" in text}
    assert len(users) >= 3, "the forget's statements fold text"
    for path, text in users.items():
        assert text.count("toLower(normalize(") == text.count(CYPHER_FOLD), path
