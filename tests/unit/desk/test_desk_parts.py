"""The desk's parts that need no database: the diff a person reads, the session labels and
CSRF tokens, supersession chains, and the package files it serves."""

from __future__ import annotations

from api.desk.auth import STATIC
from api.desk.base import ENV, when
from api.desk.context import chains
from api.desk.diff import Piece, diff, words
from api.desk.signin import LABEL, _parse, csrf_token, tokens_match


def test_a_diff_marks_the_words_taken_out_and_put_in() -> None:
    assert words("Tokens expire after 15 minutes.", "Tokens expire after 5 minutes.") == (
        Piece("same", "Tokens expire after"),
        Piece("out", "15"),
        Piece("in", "5"),
        Piece("same", "minutes."),
    )


def test_a_diff_lists_only_changed_fields_and_hides_vectors() -> None:
    before = {"title": "T", "content": "a b", "embedding": [0.1], "tags": ["x"]}
    after = {"title": "T", "content": "a c", "embedding": [0.2], "tags": ["x", "y"]}
    changed = diff(before, after)
    assert [f.name for f in changed] == ["content", "tags"]
    assert diff(None, {"title": "New"})[0].pieces == (Piece("in", "New"),)
    assert diff({"title": "Old"}, None)[0].pieces == (Piece("out", "Old"),)
    assert diff({"a": 1}, {"a": 1}) == []


def test_the_session_keys_sign_ins_once_minted_are_told_by_their_labels() -> None:
    assert _parse(f"{LABEL}:1900000000:key_abc") == (1_900_000_000, "key_abc")
    assert _parse("my laptop") is None and _parse(None) is None and _parse("desk:soon:key") is None
    assert _parse(f"{LABEL}:1900000000:-") == (1_900_000_000, "-")
    # Only that exact shape: a person's own key labelled "desk:..." otherwise is theirs.
    for own in (
        "desk:2025",
        "desk:2025:",
        "desk:2025:laptop",
        "desk:1900000000:key_abc:x",
        "desk:1900000000:key_ABC",
        " desk:1900000000:-",
    ):
        assert _parse(own) is None, own


def test_csrf_tokens_are_per_secret_and_compared_in_constant_time() -> None:
    token = csrf_token("secret-a")
    assert token != csrf_token("secret-b") and len(token) == 64
    assert tokens_match(token, token)
    assert not tokens_match(token, None) and not tokens_match(token, "0" * 64)


def test_supersession_chains_run_oldest_first() -> None:
    decisions = [
        {"id": "c", "supersedes": ["b"], "supersededBy": []},
        {"id": "b", "supersedes": ["a"], "supersededBy": ["c"]},
        {"id": "a", "supersedes": [], "supersededBy": ["b"]},
        {"id": "alone", "supersedes": [], "supersededBy": []},
        {"id": "late", "supersedes": ["off-page"], "supersededBy": []},
    ]
    assert [[d["id"] for d in chain] for chain in chains(decisions)] == [["a", "b", "c"], ["alone"], ["late"]]


def test_times_read_as_a_person_reads_them() -> None:
    assert when("2026-12-02T11:44:24.123+00:00") == "2026-12-02 11:44 UTC"
    assert when(None) == "" and when("not a time") == "not a time"
    assert when(1_767_225_600_000) == "2026-01-01 00:00 UTC"


def test_htmx_and_the_style_come_from_the_installed_packages() -> None:
    htmx = STATIC["htmx.min.js"][0].read_text()
    assert "htmx" in htmx and len(htmx) > 40_000
    assert "--accent" in STATIC["desk.css"][0].read_text()


def test_templates_escape_what_agents_wrote() -> None:
    html = ENV.get_template("_problem.html").render(status=404, message="<script>alert(1)</script>")
    assert "<script>" not in html and "&lt;script&gt;" in html
