"""Text compared without regard to case or form, in any script: what a forget's ``query``
means by "holds the text".

:func:`fold` is Unicode's caseless match with compatibility forms
(``NFKC(casefold(NFKC(s)))``): "ÉMILE" holds "émile", "STRASSE" holds "straße", "ﬁle" holds
"file", "ΣΟΦΊΑ" holds "σοφία". Neo4j has no casefold, so a statement compares through
:data:`CYPHER_FOLD`'s expression (lower case, the three letters whose caseless form differs
from their lower case in common text, NFKC), which equals :func:`fold` on every character
but those of :data:`RARE` (Cherokee, the Greek letters with a subscript iota and old
Cyrillic forms, whose case folds to other letters; and letters newer than the Unicode of
Neo4j's Java 17, whose case Java does not know). A statement therefore keeps a string
that holds the query by :data:`CYPHER_FOLD` *or* holds any of :data:`RARE`, and Python
decides on those with :func:`holds`: the statement's answer is a superset, the decision
exact. ``tests/integration/core/test_folding.py`` checks the expression against every code
point on the real Neo4j.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterator
from typing import Any

from graph.core.db import Database

#: The code points whose caseless form the statements' expression does not give.
RARE: tuple[tuple[int, int], ...] = (
    (0x13A0, 0x13F5), (0x13F8, 0x13FD), (0x1C80, 0x1C88), (0x1F80, 0x1FAF), (0x1FB2, 0x1FB4),
    (0x1FB7, 0x1FB7), (0x1FBC, 0x1FBC), (0x1FC2, 0x1FC4), (0x1FC7, 0x1FC7), (0x1FCC, 0x1FCC),
    (0x1FF2, 0x1FF4), (0x1FF7, 0x1FF7), (0x1FFC, 0x1FFC), (0x2C2F, 0x2C2F), (0xA7C0, 0xA7C0),
    (0xA7D0, 0xA7D0), (0xA7D6, 0xA7D6), (0xA7D8, 0xA7D8), (0xA7F2, 0xA7F4), (0xAB70, 0xABBF),
    (0x10570, 0x1057A), (0x1057C, 0x1058A), (0x1058C, 0x10592), (0x10594, 0x10595),
    (0x10781, 0x10785), (0x10787, 0x107B0), (0x107B2, 0x107BA),
)  # fmt: skip

#: The same as a Java regular expression a statement matches a whole string against
#: (``v =~ $rare``). Testing it on every string costs 2.4 s over 100,000 notes, so a
#: statement first tests :data:`LOW_PATTERN`, a string wholly below the first of them (all
#: of Latin, Greek and Cyrillic text), in 0.2 s.
RARE_PATTERN = "(?s).*[" + "".join(f"\\x{{{a:X}}}-\\x{{{b:X}}}" for a, b in RARE) + "].*"
LOW_PATTERN = f"[\\x00-\\x{{{RARE[0][0] - 1:X}}}]*+"

#: What the statements compute of a string ``v`` (written out in each statement that
#: compares text; a test holds them to this one).
CYPHER_FOLD = (
    "normalize(replace(replace(replace(toLower(normalize(v, NFKC)), 'ß', 'ss'), 'ς', 'σ'), 'ͅ', 'ι'), NFKC)"
)

#: Characters JSON text writes escaped (``json.dumps(..., ensure_ascii=False)``).
_JSON_ESCAPED = frozenset('"\\') | frozenset(chr(c) for c in range(0x20))


async def cypher_folds(db: Database, texts: list[str]) -> list[tuple[str, bool]]:
    """What the statements make of each of ``texts``: its caseless form by
    :data:`CYPHER_FOLD`, and whether it holds one of :data:`RARE` (what the tests hold to
    :func:`fold`)."""
    rows = await db.read_listed("queries/core/fold_probe", texts=texts, rare=RARE_PATTERN, low=LOW_PATTERN)
    return [(str(folded), bool(rare)) for folded, rare in rows]


def fold(text: str) -> str:
    """``text`` in its caseless, compatibility-normal form."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


def holds(value: Any, query: str) -> bool:
    """Whether ``value`` (a string, or a list of them) holds the folded ``query``."""
    return any(query in fold(text) for text in strings(value))


def strings(value: Any) -> Iterator[str]:
    """Every string in ``value``: itself, or the items of a list, or the values (not the
    keys) of a JSON document's maps and lists, nested."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)


def json_holds(text: str | None, query: str) -> bool:
    """Whether the JSON document ``text`` holds the folded ``query`` in any of its strings
    (text that is not JSON is compared whole)."""
    if text is None:
        return False
    try:
        return holds(json.loads(text), query)
    except ValueError:
        return query in fold(text)


def json_probe(query: str) -> str:
    """What a statement looks for in JSON text to find the folded ``query``: its longest
    stretch that JSON text writes as it is (a quote, a backslash or a control character
    are written escaped). A document that holds the query holds the stretch."""
    pieces = "".join("\0" if c in _JSON_ESCAPED else c for c in query).split("\0")
    return max(pieces, key=len)


#: The field of a payload kept exactly (a note's or a message's ``data``): compact JSON text.
PAYLOAD = "data"


def payload_holds(text: Any, query: str) -> bool:
    """Whether a payload's JSON text holds the folded ``query`` in a key or a string of the
    value it holds (text JSON writes escaped, a quote or a backslash, is found there)."""
    if not isinstance(text, str):
        return False
    try:
        return any(query in fold(s) for s in _all_strings(json.loads(text)))
    except ValueError:
        return False


def state_payload_holds(text: str | None, query: str) -> bool:
    """Whether a stored state's JSON text holds the folded ``query`` in a payload it carries
    (a ``data`` field at any depth): its keys and strings."""
    if text is None or f'"{PAYLOAD}"' not in text:
        return False
    try:
        return any(payload_holds(t, query) for t in _payloads(json.loads(text)))
    except ValueError:
        return False


def _payloads(value: Any, key: str = "") -> Iterator[Any]:
    if key == PAYLOAD:
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _payloads(item)
    elif isinstance(value, dict):
        for name, item in value.items():
            yield from _payloads(item, name)


def _all_strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _all_strings(item)
    elif isinstance(value, dict):
        for name, item in value.items():
            yield name
            yield from _all_strings(item)
