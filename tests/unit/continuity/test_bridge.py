"""Fitting the context bridge into its token budget, with the real offline tokenizer."""

from __future__ import annotations

import warnings
from datetime import UTC, datetime

import pytest

from graph.continuity.agents import BridgeConfig
from graph.continuity.bridge import BridgeService, render
from graph.continuity.bridge import fit as fit_block
from graph.continuity.tokens import TokenCounter

COUNTER = TokenCounter()
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
DAY = 86_400_000
T0 = int(NOW.timestamp() * 1000)


def _row() -> dict[str, object]:
    return {
        "sessions": [  # newest first, as the query returns them
            {"id": f"s{i}", "summary": f"We looked at part {i} of the cache rollout and agreed on its shape.",
             "topics": ["caching"], "keyDecisions": [f"Decision {i}"], "messageCount": 10,
             "durationMinutes": 30, "startedAt": T0 - i * DAY, "endedAt": T0 - i * DAY + 1_800_000}
            for i in (1, 2, 3)
        ],
        "pending": [  # oldest first
            {"id": f"p{i}", "text": f"Follow up on PR #{40 + i}", "carriedCount": i - 1, "sessionId": "s1",
             "originSessionId": "s3", "createdAt": T0 - (5 - i) * DAY}
            for i in (1, 2)
        ],
        "profile": {"background": "Data engineer at TechCorp.", "updatedAt": T0,
                    "preferences": [{"name": "editor theme", "value": "dark", "insightId": None}]},
    }  # fmt: skip


def _memory() -> list[dict[str, object]]:
    return [  # best first
        {"kind": "note", "id": f"n{i}", "title": f"Cache note {i}", "type": "fact", "confidence": 0.9,
         "content": "Redis keeps the session cache; entries expire after thirty minutes. " * 2,
         "relevance": 1 / i}
        for i in (1, 2, 3, 4)
    ]  # fmt: skip


def _draft():  # type: ignore[no-untyped-def]
    return BridgeService._draft("assistant", "caching", _row(), _memory(), BridgeConfig(), NOW)


def test_everything_fits_a_large_budget_in_the_seeds_order_with_pending_on_top() -> None:
    draft = _draft()
    tokens = fit_block(draft, 5_000, COUNTER.count)
    text = render(draft)
    assert tokens == COUNTER.count(text) and not draft.dropped
    heads = [
        text.index(h)
        for h in ("## Open pending actions", "## Earlier sessions", "## What you know", "## The user")
    ]
    assert heads == sorted(heads)
    assert "On 2026-11-29 (30 min, 10 messages), the session ended with this summary" in text
    assert text.index("part 1") < text.index("part 2") < text.index("part 3")  # newest first
    assert "Follow up on PR #42 (left open 3 days ago, on 2026-11-27; carried forward 1 time; id p2)" in text


@pytest.mark.parametrize("budget", [900, 400, 300, 220, 150, 60])
def test_a_smaller_budget_drops_memory_first_then_the_oldest_sessions(budget: int) -> None:
    full = _draft()
    fit_block(full, 100_000, COUNTER.count)
    draft = _draft()
    tokens = fit_block(draft, budget, COUNTER.count)
    text = render(draft)
    assert tokens == COUNTER.count(text)
    assert tokens <= budget or not any(draft.sections.values())
    dropped = [(p.section, p.id) for p in draft.dropped]
    order = {"memory": 0, "recentSessions": 1, "profile": 2, "pendingActions": 3}
    assert [order[s] for s, _ in dropped] == sorted(order[s] for s, _ in dropped)
    memory = [i for s, i in dropped if s == "memory"]
    assert memory == ["n4", "n3", "n2", "n1"][: len(memory)]  # least relevant first
    sessions = [i for s, i in dropped if s == "recentSessions"]
    assert sessions == ["s3", "s2", "s1"][: len(sessions)]  # oldest first
    kept = {(s, p.id) for s, ps in draft.sections.items() for p in ps}
    assert kept | set(dropped) == {(s, p.id) for s, ps in full.sections.items() for p in ps}
    assert not kept & set(dropped)
    if any(s == "profile" for s, _ in dropped) or any(s == "pendingActions" for s, _ in dropped):
        assert not draft.sections["memory"] and not draft.sections["recentSessions"]


def test_nothing_to_carry_over_is_said_in_a_short_honest_block() -> None:
    row = {"sessions": [], "pending": [], "profile": None}
    draft = BridgeService._draft("assistant", "caching", row, [], BridgeConfig(), NOW)
    tokens = fit_block(draft, 2_000, COUNTER.count)
    text = render(draft)
    assert 'no earlier sessions, no open pending actions, nothing stored about "caching", no profile' in text
    assert tokens < 80 and "##" not in text


def test_the_tokenizer_is_offline_and_named() -> None:
    assert COUNTER.name.startswith("o200k_base (bpe-openai ")
    assert COUNTER.count("") == 0
    assert COUNTER.count("hello world") == 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # how bpe-openai 0.1.4 reads its files
        import bpe_openai

        encoding = bpe_openai.get_encoding("o200k_base")
    text = render(_draft()) + " ünïcode 漢字 🙂 tabs\tand\nnewlines"
    assert COUNTER.count(text) == len(encoding.encode_ordinary(text))  # the library's own count
