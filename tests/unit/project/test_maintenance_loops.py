"""The arithmetic of validate-connections without a database: which loops of supersedes
edges it finds, which edge of each it removes, and which notes a removal frees."""

from __future__ import annotations

from typing import Any

from graph.project.maintenance_connections import find_loop, loops_to_break


def edge(source: str, target: str, at: int) -> dict[str, Any]:
    return {"sourceId": source, "targetId": target, "createdAt": at}


def test_a_chain_has_no_loop_and_a_long_one_needs_no_recursion() -> None:
    chain = [edge(f"n{i}", f"n{i + 1}", i) for i in range(5_000)]
    assert find_loop(chain) is None
    closed = [*chain, edge("n5000", "n0", 9_999)]
    loop = find_loop(closed)
    assert loop is not None and len(loop) == 5_001


def test_each_loop_is_broken_at_its_newest_edge_once() -> None:
    # Two loops sharing the edge b > c: a > b > c > a and b > c > d > b.
    edges = [edge("a", "b", 1), edge("b", "c", 2), edge("c", "a", 5), edge("c", "d", 3), edge("d", "b", 4)]
    broken = loops_to_break(edges)
    assert [(n["sourceId"], n["targetId"]) for _, n in broken] == [("c", "a"), ("d", "b")]
    assert [[e["sourceId"] for e in loop] for loop, _ in broken] == [["a", "b", "c"], ["b", "c", "d"]]
    # The same edges give the same answer, whatever their order.
    assert loops_to_break(list(reversed(edges))) == broken


def test_a_shared_newest_edge_breaks_both_loops_at_once() -> None:
    edges = [edge("a", "b", 9), edge("b", "a", 1), edge("b", "c", 2), edge("c", "a", 3)]
    assert [(n["sourceId"], n["targetId"]) for _, n in loops_to_break(edges)] == [("a", "b")]
