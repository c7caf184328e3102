"""Stored states: the JSON text journal entries, corrections and proposals keep of a value.

A ``Mutation``'s ``before`` and ``after``, a ``Correction``'s ``before`` and ``after`` and a
``Proposal``'s ``payload`` hold a value as JSON text, written by :func:`state_json` alone,
so every one of them reads the same way: keys sorted, and text as it was written ("Émile",
not ``\\u00c9mile``), so a search or a forget that matches text in the stored states finds
accented and non-Latin letters like any other. JSON's own escapes stay (``\\"``, ``\\\\``,
``\\n`` and the other control characters), and so does one more: a lone surrogate (a JSON
body may carry ``"\\ud800"``, which Python reads as a code point UTF-8 cannot encode, so
Bolt could not send it) is written as its ``\\uXXXX`` escape, so the text is valid JSON and
valid UTF-8 both. ``json.loads`` reads either form back to the same value.

Rows written before (``json.dumps``' default: every non-ASCII character escaped) are
rewritten once by :func:`restate` (``ctxnet db migrate``, graph/core/schema.py; a restore of
an older export, graph/io/restore.py).
"""

from __future__ import annotations

import json
import re
from typing import Any

#: The properties that hold a stored state, by the label of the node that keeps them.
STATE_PROPERTIES: dict[str, tuple[str, ...]] = {
    "Mutation": ("before", "after"),
    "Correction": ("before", "after"),
    "Proposal": ("payload",),
}

#: A surrogate code point: only a lone one reaches a Python string from a JSON body (a pair
#: is read as the one character it encodes).
_SURROGATE = re.compile("[\ud800-\udfff]")


def _escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def state_json(value: Any) -> str:
    """``value`` as the JSON text a stored state holds: keys sorted, characters as they are
    (no ASCII escapes) but for lone surrogates, escaped so the text encodes as UTF-8."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return _SURROGATE.sub(_escaped, text)


def restate(text: str) -> str:
    """A stored state's text as :func:`state_json` writes it (the same value; text written
    with ASCII escapes gets its characters back); text that is not JSON is left as it is."""
    try:
        return state_json(json.loads(text))
    except ValueError:
        return text
