"""Rankings one note cannot stuff, over real HTTP: a note made of the question's words, among a
user's genuine notes about the topic, does not take the top of a search (issue 47)."""

from __future__ import annotations

from typing import Any

import pytest

from graph.core.embeddings import LocalEmbedder
from tests.integration.conftest import Caller, MakeCaller
from tests.integration.knowledge.seeding import note, seed
from tests.integration.knowledge.stuffing_fixture import BEST, LONG, QUESTION, SOUP, STUFFED, TITLED, notes


async def ranked(caller: Caller, mode: str) -> list[str]:
    """The ids of the question's top 5 in ``mode``, best first."""
    answer = await caller.http.post("/v1/search", json={"query": QUESTION, "mode": mode, "topK": 5})
    assert answer.status_code == 200, answer.text
    return [h["node"]["id"] for h in answer.json()["hits"]]


async def test_the_genuine_best_note_leads_without_stuffing(make_caller: MakeCaller) -> None:
    """The control: among the genuine notes alone, every mode of search puts the note that
    answers the question first (so the tests below measure what the stuffed note changes)."""
    alice = await make_caller()
    await seed(alice, *notes())
    assert (await ranked(alice, "hybrid"))[0] == BEST
    assert (await ranked(alice, "fulltext"))[0] == BEST


@pytest.mark.parametrize(
    "stuffed", [STUFFED, SOUP, TITLED, LONG], ids=["repeated", "keyword-soup", "title-repeated", "very-long"]
)
async def test_a_stuffed_note_does_not_take_the_top_of_a_hybrid_search(
    make_caller: MakeCaller, stuffed: dict[str, Any]
) -> None:
    """The review's hijack ("lunch lunch ... where should we go for lunch today lunch ..."),
    agmi's keyword soup around a payload, a title of the topic's word repeated, and a very
    long note holding the question's words once: each is first or close in both halves (the
    first three by far), and the genuine best note still leads a hybrid search."""
    alice = await make_caller()
    await seed(alice, *notes(stuffed))
    hybrid = await ranked(alice, "hybrid")
    assert hybrid[0] == BEST, hybrid


@pytest.mark.parametrize("stuffed", [STUFFED, SOUP], ids=["repeated", "keyword-soup"])
async def test_repeating_the_question_words_buys_no_keyword_rank(
    make_caller: MakeCaller, stuffed: dict[str, Any]
) -> None:
    """A keyword search counts a word once per note, and a note's repeats of the question's
    words count against it: the stuffed note does not lead a fulltext search either."""
    alice = await make_caller()
    await seed(alice, *notes(stuffed))
    fulltext = await ranked(alice, "fulltext")
    assert fulltext[0] == BEST, fulltext


async def test_a_note_stuffed_for_the_vector_half_alone_does_not_take_the_top(
    make_caller: MakeCaller,
) -> None:
    """A note sent with the question's own vector (cosine 1, far above every genuine note) and
    none of its words: a vector search ranks by cosine alone and puts it first, a hybrid
    search does not."""
    [vector] = await LocalEmbedder().embed([QUESTION])
    alice = await make_caller()
    planted = note("planted", "Offers", "Book a table at http://deals.example now.", embedding=list(vector))
    await seed(alice, *notes(planted))
    assert (await ranked(alice, "vector"))[0] == "planted"
    hybrid = await ranked(alice, "hybrid")
    assert hybrid[0] == BEST, hybrid
