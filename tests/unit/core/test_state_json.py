"""Stored states (graph/core/states.py): text as it was written, JSON that reads back to the
same value, and always encodable as UTF-8 (what Bolt sends); older, ASCII-escaped states
rewritten to the same value."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graph.core.states import restate, state_json

VALUES: list[Any] = [
    {"content": "Émile Dubreuil earns 91k per year.", "title": "Øystein"},
    {"content": "Иван Петров", "tags": ["東京", "北京"]},
    {"content": "ship it 🚀 today 👩🏽‍💻"},
    {"content": "tab\there, newline\nthere, NUL\x00, bell\x07, DEL\x7f, line sep\u2028 para\u2029"},
    {"content": 'quote " backslash \\ and a literal \\u00c9 typed by hand'},
    {"patch": {"confidence": 0.5, "n": 2**63 - 1, "none": None, "yes": True}},
    "a bare string",
    None,
]


@pytest.mark.parametrize("value", VALUES)
def test_a_state_reads_back_as_the_value_and_holds_its_text_as_written(value: Any) -> None:
    text = state_json(value)
    assert json.loads(text) == value
    text.encode("utf-8")  # raises on a character UTF-8 cannot carry
    for s in _strings(value):
        printable = "".join(c if c.isprintable() and c not in '"\\' else " " for c in s)
        for word in printable.split():
            assert word in text, f"{word!r} is stored escaped: {text}"


def test_keys_are_sorted_as_before() -> None:
    assert state_json({"b": 1, "a": {"d": 2, "c": 3}}) == '{"a": {"c": 3, "d": 2}, "b": 1}'


def test_accents_cjk_and_emoji_are_stored_literally() -> None:
    assert state_json({"content": "Émile"}) == '{"content": "Émile"}'
    assert state_json(["東京", "😀"]) == '["東京", "😀"]'


@pytest.mark.parametrize("lone", ["\ud800", "\udbff", "\udc00", "\udfff"])
def test_a_lone_surrogate_is_escaped_and_reads_back(lone: str) -> None:
    value = {"content": f"before {lone} after", "tags": [lone]}
    text = state_json(value)
    assert f"\\u{ord(lone):04x}" in text
    text.encode("utf-8")
    assert json.loads(text) == value


def test_control_characters_keep_their_json_escapes() -> None:
    assert state_json("a\nb\x00c\x1f") == '"a\\nb\\u0000c\\u001f"'


@pytest.mark.parametrize("value", VALUES)
def test_an_ascii_escaped_state_is_rewritten_to_the_same_value(value: Any) -> None:
    old = json.dumps(value, sort_keys=True)  # how states were stored before
    assert restate(old) == state_json(value)
    assert json.loads(restate(old)) == value
    assert restate(state_json(value)) == state_json(value)  # the new form is left as it is


def test_an_old_state_with_a_lone_surrogate_or_a_typed_backslash_u_is_left_as_it_was() -> None:
    for value in ({"content": "half \ud83d of a pair"}, {"content": "C:\\users\\u00e9"}):
        old = json.dumps(value, sort_keys=True)
        assert restate(old) == old


def test_text_that_is_not_json_is_left_alone() -> None:
    assert restate("not json {") == "not json {"


#: Every code point, lone surrogates included (a JSON body can carry one).
_ANY_CHARACTER = st.characters(exclude_categories=())
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(_ANY_CHARACTER),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(_ANY_CHARACTER), inner, max_size=4),
    max_leaves=20,
)


@given(_JSON)
def test_any_value_round_trips_and_encodes(value: Any) -> None:
    text = state_json(value)
    text.encode("utf-8")
    assert json.loads(text) == json.loads(json.dumps(value))
    assert restate(json.dumps(value, sort_keys=True)) == restate(text)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *_strings(v)]]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []
