"""The search query exists once per expansion depth (Cypher path bounds cannot be
parameters); the files must stay identical apart from that bound."""

from __future__ import annotations

import re

from graph.core.cypher import cypher_text
from graph.knowledge.search import SEARCH_QUERIES


def _without_depth(text: str) -> str:
    text = re.sub(r"\{1,[0-9]\}", "{1,N}", text)
    return re.sub(r"to [0-9] hops?,", "to N hops,", text)


def test_the_expanding_search_queries_differ_only_in_their_depth() -> None:
    texts = {depth: cypher_text(name) for depth, name in SEARCH_QUERIES.items()}
    for depth in (1, 2, 3):
        assert f"){{1,{depth}}}(m)" in texts[depth]
        assert _without_depth(texts[depth]) == _without_depth(texts[1]), depth


def test_the_depth_0_query_ranks_the_same_way() -> None:
    ranking_0 = (
        cypher_text(SEARCH_QUERIES[0])
        .split("CALL (hits, hitIds)")[0]
        .split("CALL () {\n  RETURN [] AS reached")[0]
    )
    ranking_1 = cypher_text(SEARCH_QUERIES[1]).split("CALL (hits, hitIds)")[0]
    assert _without_depth(ranking_0) == _without_depth(ranking_1)
