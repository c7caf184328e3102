"""The desk's word diff is bounded whatever an agent stored: it splits as the word limit
counts, shows a field past the cap whole, matches without difflib's cubic worst case, and
one page's diffs share a budget. What it shows still gives back both texts, word for word."""

from __future__ import annotations

import contextvars
import random
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from api.desk.diff import MAX_TOKENS, PAGE_TOKENS, Piece, budgeted, diff, words
from tests.support.hostile import probe


def sides(pieces: tuple[Piece, ...]) -> tuple[list[str], list[str]]:
    """The words before (same and out) and after (same and in) that the pieces show."""
    before = [w for p in pieces if p.kind in ("same", "out") for w in p.text.split()]
    after = [w for p in pieces if p.kind in ("same", "in") for w in p.text.split()]
    return before, after


def test_runs_of_blanks_are_no_words_as_the_word_limit_counts() -> None:
    assert words("a          a", "a  \n  b") == (Piece("same", "a"), Piece("out", "a"), Piece("in", "b"))
    assert words(probe(3), probe(3, changed=False)) == (Piece("same", "a a a"),)


def test_the_reviews_probe_is_shown_as_words_and_fast() -> None:
    before, after = probe(170), probe(170, changed=True)
    started = time.perf_counter()
    pieces = words(before, after)
    took = time.perf_counter() - started
    assert sides(pieces) == (before.split(), after.split())
    assert pieces[0] == Piece("same", "a a a a")  # up to the first a made a b
    assert took < 0.05, took  # 4.1 s on the desk before, by difflib over split(" ")


def test_a_prose_edit_marks_only_what_changed() -> None:
    rng = random.Random(7)
    old = [f"word{rng.randrange(5000)}" for _ in range(300)]
    new = old[:120] + ["inserted", "here"] + old[120:200] + old[201:]
    pieces = words(" ".join(old), " ".join(new))
    assert [p for p in pieces if p.kind != "same"] == [Piece("in", "inserted here"), Piece("out", old[200])]


def test_a_field_past_the_cap_is_shown_whole_out_and_in() -> None:
    long = " ".join(["a"] * (MAX_TOKENS + 1))
    assert words(long, "a") == (Piece("out", long), Piece("in", "a"))
    assert words("a", long) == (Piece("out", "a"), Piece("in", long))
    at_cap = " ".join(["a"] * MAX_TOKENS)
    assert words(at_cap, " ".join(["a"] * (MAX_TOKENS - 1) + ["b"]))[-2:] == (
        Piece("out", "a"),
        Piece("in", "b"),
    )


def test_one_pages_diffs_share_a_budget() -> None:
    def page() -> list[tuple[Piece, ...]]:
        budgeted(12)
        return [words("a b c d", "a b x d"), words("a b c d", "a b x d"), words("p q", "p r")]

    first, second, third = contextvars.copy_context().run(page)
    assert first == (Piece("same", "a b"), Piece("out", "c"), Piece("in", "x"), Piece("same", "d"))
    assert second == (Piece("out", "a b c d"), Piece("in", "a b x d"))  # 8 more words: past the 12
    assert third == (Piece("same", "p"), Piece("out", "q"), Piece("in", "r"))  # 4 fit again
    # Outside a page's rendering there is no budget (and each page has its own).
    assert contextvars.copy_context().run(page)[0] == first
    assert PAGE_TOKENS >= 2 * MAX_TOKENS  # one field at the cap always fits a page


def test_fields_differ_by_value_and_hidden_ones_not_at_all() -> None:
    assert [f.name for f in diff({"title": "T", "seq": 1}, {"title": "U", "seq": 2})] == ["title"]
    assert diff({"tags": ["a"]}, {"tags": ["a", "b"]})[0].pieces == (
        Piece("out", '["a"]'),
        Piece("in", '["a", "b"]'),
    )


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", "c", "the", "x1", "x2", "x3"]), max_size=120),
    st.lists(st.sampled_from(["a", "b", "c", "the", "x1", "x4", "x5"]), max_size=120),
)
def test_the_pieces_give_back_both_texts(old: list[str], new: list[str]) -> None:
    pieces = words(" ".join(old), " ".join(new))
    assert sides(pieces) == (old, new)
    assert all(p.text for p in pieces)
    assert all(a.kind != b.kind for a, b in zip(pieces, pieces[1:], strict=False))


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_long_texts_with_anchors_give_back_both_texts(data: st.DataObject) -> None:
    vocabulary = [f"w{i}" for i in range(data.draw(st.integers(2, 400)))]
    old = data.draw(st.lists(st.sampled_from(vocabulary), max_size=700))
    edits = data.draw(
        st.lists(st.tuples(st.integers(0, 700), st.sampled_from([*vocabulary, "new"])), max_size=40)
    )
    new = list(old)
    for at, word in edits:  # a few words put in, taken out or changed
        if new and at % 3 == 0:
            del new[at % len(new)]
        elif new and at % 3 == 1:
            new[at % len(new)] = word
        else:
            new.insert(at % (len(new) + 1), word)
    pieces = words(" ".join(old), " ".join(new))
    assert sides(pieces) == (old, new)


def _shapes() -> dict[str, tuple[str, str]]:
    """The worst shapes at the cap: repeated words, alternating ones, and unique words every
    few (anchors) with repeated words between them, which the bounded match handles last."""
    n = MAX_TOKENS
    shapes = {
        "repeated": (" ".join(["a"] * n), " ".join("b" if i % 5 == 4 else "a" for i in range(n))),
        "alternating": (" ".join(["a", "b"] * (n // 2)), " ".join(["b", "a"] * (n // 2))),
    }
    for every in (6, 11, 17, 25):
        old = [f"u{i}" if i % every == 0 else "a" for i in range(n)]
        new = [f"u{i}" if i % every == 0 else ("b" if i % 2 else "a") for i in range(n)]
        shapes[f"anchored every {every}"] = (" ".join(old), " ".join(new))
    return shapes


@pytest.mark.serial  # it times the diff: alone, so no other test's load counts
@pytest.mark.parametrize("shape", list(_shapes()))
def test_the_worst_shapes_at_the_cap_take_milliseconds(shape: str) -> None:
    before, after = _shapes()[shape]
    took = min(_timed(before, after) for _ in range(3))
    # About 15 ms at worst on 2 busy cores; difflib took 66 s on the repeated shape.
    assert took < 0.1, (shape, took)


def _timed(before: str, after: str) -> float:
    started = time.perf_counter()
    words(before, after)
    return time.perf_counter() - started
