"""The search query exists once per expansion depth (each hop is a step of its own); the
files must stay identical apart from their number of hops."""

from __future__ import annotations

import re

from graph.core.cypher import cypher_text
from graph.knowledge.search import SEARCH_QUERIES

#: One hop after the first: from the notes of the depth before, each note once.
STEP = re.compile(
    r"  CALL \(hitIds, level\) \{\n.*?    cut OR size\(found\) > \$maxReached - size\(level\) AS cut\n", re.S
)


def _plain(text: str) -> str:
    """Without comments, and with a hop's own depth numbers as K."""
    text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
    text = re.sub(r"x\.depth = [0-9]", "x.depth = K", text)
    return re.sub(r"depth: [0-9], vias", "depth: K, vias", text)


def test_each_depth_adds_one_hop_and_nothing_else() -> None:
    texts = {depth: cypher_text(name) for depth, name in SEARCH_QUERIES.items()}
    plain = {depth: _plain(text) for depth, text in texts.items()}
    for depth in (1, 2, 3):
        assert f"depth: {depth}, vias" in texts[depth] and f"depth: {depth + 1}, vias" not in texts[depth]
        steps = STEP.findall(plain[depth])
        assert len(steps) == depth - 1 and len(set(steps)) <= 1, depth
        assert STEP.sub("", plain[depth]) == STEP.sub("", plain[1]), depth
        assert "){1," not in texts[depth]  # paths are never enumerated


def test_the_depth_0_query_ranks_the_same_way() -> None:
    ranking_0 = _plain(cypher_text(SEARCH_QUERIES[0])).split("CALL () {\n  RETURN [] AS reached")[0]
    ranking_1 = _plain(cypher_text(SEARCH_QUERIES[1])).split("CALL (hits, hitIds)")[0]
    assert ranking_0 == ranking_1
    returned_0 = _plain(cypher_text(SEARCH_QUERIES[0])).split(
        "WITH vectorHits, textHits, matched, ranked, hits, reached"
    )
    returned_1 = _plain(cypher_text(SEARCH_QUERIES[1])).split(
        "WITH vectorHits, textHits, matched, ranked, hits, reached"
    )
    assert returned_0[1] == returned_1[1]
