"""``/metrics``: what an operator's Prometheus scrapes, from one API process or several."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest
from prometheus_client.mmap_dict import MmapedDict
from prometheus_client.parser import text_string_to_metric_families

from tests.integration.conftest import MakeCaller
from tests.support.servers import ApiProcess


def samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of a scrape, by name and labels."""
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def value(scrape: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str) -> float:
    return scrape.get((name, frozenset(labels.items())), 0.0)


@pytest.mark.smoke
async def test_metrics_count_requests_by_route_template_and_time_neo4j_and_the_embedder(
    make_caller: MakeCaller, anonymous: httpx.Client
) -> None:
    alice = await make_caller()
    before = samples(anonymous.get("/metrics").text)
    note = {"id": "metrics-note-77", "title": "Metrics", "content": "Counted once.", "type": "fact"}
    assert (await alice.http.post("/v1/knowledge", json=note)).status_code == 201
    assert (await alice.http.get("/v1/knowledge/metrics-note-77")).status_code == 200
    assert (await alice.http.get("/v1/knowledge/no-such-note-77")).status_code == 404
    assert (await alice.http.post("/v1/search", json={"query": "counted", "maxDepth": 0})).status_code == 200

    scrape = anonymous.get("/metrics")  # no key needed, like /health
    assert scrape.status_code == 200
    assert scrape.headers["content-type"].startswith("text/plain")
    after = samples(scrape.text)

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    requests = "ctxnet_http_requests_total"
    assert grew(requests, route="/v1/knowledge", method="POST", status="201") >= 1
    assert grew(requests, route="/v1/knowledge/{id}", method="GET", status="200") >= 1
    assert grew(requests, route="/v1/knowledge/{id}", method="GET", status="404") >= 1
    latency = "ctxnet_http_request_duration_seconds_count"
    assert grew(latency, route="/v1/search", method="POST") >= 1
    # Ids never become labels (a series per note would swamp Prometheus), nor do users.
    assert "metrics-note-77" not in scrape.text and "no-such-note-77" not in scrape.text
    assert alice.user_id not in scrape.text
    assert grew("ctxnet_neo4j_query_duration_seconds_count", query="queries/knowledge/notes_create") >= 1
    assert grew("ctxnet_neo4j_query_duration_seconds_count", query="queries/knowledge/search_0") >= 1
    model = next(
        dict(labels)["model"] for name, labels in after if name == "ctxnet_embedder_duration_seconds_count"
    )
    assert grew("ctxnet_embedder_texts_total", model=model) >= 2  # the note and the query
    assert {dict(labels)["state"] for name, labels in after if name == "ctxnet_jobs"} == {
        "queued", "running", "done", "failed", "expired",
    }  # fmt: skip


async def test_every_worker_process_counts_into_one_scrape(make_caller: MakeCaller, tmp_path: Path) -> None:
    """Two uvicorn workers behind one port: whichever answers a scrape reports both."""
    folder = tmp_path / "prometheus"
    folder.mkdir()
    api = ApiProcess(tmp_path / "api.log", {"PROMETHEUS_MULTIPROC_DIR": str(folder)}, workers=2).start()
    try:
        api.wait_ready()
        alice = await make_caller()
        auth = {"Authorization": f"Bearer {alice.key}"}

        async def calls() -> None:
            # A connection of its own each time, so the kernel hands them to either worker.
            for _ in range(5):
                async with httpx.AsyncClient(base_url=api.base_url, headers=auth) as http:
                    assert (await http.get("/v1/me")).status_code == 200

        await asyncio.gather(*(calls() for _ in range(8)))
        for _ in range(6):  # on fresh connections too: some scrapes reach each worker
            scrape = samples(httpx.get(f"{api.base_url}/metrics", timeout=30).text)
            me = value(scrape, "ctxnet_http_requests_total", route="/v1/me", method="GET", status="200")
            assert me == 40
        # And both workers did answer some of the 40 (each keeps its own file of values).
        per_worker = []
        for path in folder.glob("counter_*.db"):
            per_worker.append(
                sum(
                    count
                    for key, count, *_ in MmapedDict.read_all_values_from_file(str(path))
                    if '"/v1/me"' in key and '"ctxnet_http_requests_total"' in key
                )
            )
        assert len([c for c in per_worker if c > 0]) == 2 and sum(per_worker) == 40, per_worker
    finally:
        api.stop()
