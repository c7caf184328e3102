"""The forms the OpenAPI document states for ids, times and cursors are the ones the server
holds requests to: every value of a stated form is taken, and a cursor the services issue
comes out in its listing's form and goes back in as the same cursor."""

from __future__ import annotations

import re

import pytest
from pydantic import TypeAdapter, ValidationError

from ctxnet.wire import cursors
from ctxnet.wire.base import ID_PATTERN, NON_BLANK, DateTime, Id
from ctxnet.wire.continuity.bridge import BridgeIn
from ctxnet.wire.knowledge.search import SearchIn
from graph.core import values
from graph.core.errors import InvalidInput


def test_the_stated_id_pattern_is_the_one_the_services_check() -> None:
    assert values._ID.pattern == ID_PATTERN


@pytest.mark.parametrize("value", ["a", "A.b_c:d@e-f", "0" * 128, "starter:wake-up"])
def test_an_id_of_the_stated_form_is_taken(value: str) -> None:
    assert TypeAdapter(Id).validate_python(value) == value
    assert values.check_id(value) == value


@pytest.mark.parametrize("value", ["", "-a", "a b", "a/b", "0" * 129, "é"])
def test_anything_else_is_refused_with_what_an_id_is(value: str) -> None:
    with pytest.raises(ValidationError, match="letters, digits"):
        TypeAdapter(Id).validate_python(value)
    with pytest.raises(InvalidInput):
        values.check_id(value)


@pytest.mark.parametrize("value", ["0.5", "1700000000", "2026-01-31T09:00:00", "2026-01-31", "yesterday"])
def test_a_time_is_rfc_3339_text_with_its_offset(value: str) -> None:
    with pytest.raises(ValidationError, match="RFC 3339"):
        TypeAdapter(DateTime).validate_python(value)


def test_a_time_with_its_offset_is_taken() -> None:
    assert TypeAdapter(DateTime).validate_python("2026-01-31T09:00:00.5+01:00").utcoffset() is not None


@pytest.mark.parametrize(
    ("form", "issued"),
    [
        (cursors.TIMED, values.encode_cursor("2026-11-29T15:05:27.646123456Z", "note-1")),
        (cursors.TIMED, values.encode_cursor("2026-11-29T15:05:27Z", "a.b:c@d")),
        (cursors.TIMED, values.encode_cursor("1969-12-31T23:59:59.5Z", "old")),
        (cursors.GOALS, values.encode_cursor("2026-11-29T15:05:27.646Z", "1:goal-1")),
        (cursors.ENTRIES, values.encode_cursor("2026-11-29T15:05:27.646+00:00", "2026-11-01|adr-7")),
        (cursors.EDGES, values.encode_key_cursor("note-1 SUPERSEDES note-2")),
        (cursors.SEQUENCE, "42"),
        (cursors.JOURNAL, "42.0"),
        (cursors.PROPOSALS, "42.proposal-1"),
        (cursors.SKILLS, "starter:wake-up"),
    ],
)
def test_an_issued_cursor_goes_out_in_its_form_and_comes_back_as_it_was(
    form: cursors.CursorForm, issued: str
) -> None:
    wire = form.wire(issued)
    assert wire is not None
    assert re.fullmatch(form.pattern, wire), wire
    back = form.check(wire)
    if form in (cursors.TIMED, cursors.GOALS, cursors.ENTRIES):
        # The same instant and item (Neo4j reads the time back equal, written either way).
        position, last = values.decode_cursor(back)
        issued_position, issued_last = values.decode_cursor(issued)
        assert last == issued_last
        assert _instant(position) == _instant(issued_position)
    else:
        assert back == issued


@pytest.mark.parametrize(
    ("form", "wire"),
    [
        (cursors.TIMED, "999999999999.999999999~z"),
        (cursors.TIMED, "-999999999999.000000000~0"),
        (cursors.GOALS, "0.000000000~0:0"),
        (cursors.ENTRIES, "0.000000000~9999-99-99~x"),
        (cursors.EDGES, "a~B~c"),
    ],
)
def test_every_cursor_of_a_stated_form_names_a_position_the_services_take(
    form: cursors.CursorForm, wire: str
) -> None:
    issued = form.check(wire)
    if form is cursors.EDGES:
        assert values.decode_key_cursor(issued) == "a B c"
    else:
        values.decode_cursor(issued)


@pytest.mark.parametrize("wire", ["", "abc", "1.5~x", "1.000000000x", "eyJhIjoxfQ", "1.000000000~-x"])
def test_a_cursor_of_another_form_is_refused(wire: str) -> None:
    with pytest.raises(ValueError, match="nextCursor"):
        cursors.TIMED.check(wire)


def _instant(text: str) -> tuple[int, str]:
    seconds, nanos = cursors._seconds(text).split(".")
    return int(seconds), nanos


def test_the_stated_non_blank_pattern_is_what_strip_leaves() -> None:
    pattern = re.compile(NON_BLANK)
    for code in range(0x110000):
        char = chr(code)
        assert bool(pattern.fullmatch(char)) == bool(char.strip()), hex(code)


@pytest.mark.parametrize("value", ["60", True, [60], 60.5])
def test_a_number_field_takes_a_json_number_only(value: object) -> None:
    with pytest.raises(ValidationError) as raised:
        BridgeIn.model_validate({"tokenBudget": value})
    assert raised.value.errors()[0]["loc"] == ("tokenBudget",)


def test_an_integral_json_number_is_an_integer() -> None:
    assert BridgeIn.model_validate({"tokenBudget": 60.0}).token_budget == 60


@pytest.mark.parametrize("value", [1, "true", None])
def test_a_flag_takes_true_or_false_only(value: object) -> None:
    with pytest.raises(ValidationError):
        SearchIn.model_validate({"query": "q", "expandConnections": value})
