"""Waiting on background jobs over HTTP, as a caller of the API does."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx


async def finished(http: httpx.AsyncClient, job_id: str, timeout: float = 90.0) -> dict[str, Any]:
    """The job once it is done or failed."""
    for _ in range(int(timeout / 0.05)):
        job: dict[str, Any] = (await http.get(f"/v1/jobs/{job_id}")).json()
        if job["status"] in ("done", "failed"):
            return job
        await asyncio.sleep(0.05)
    raise AssertionError(f"job {job_id} did not finish in {timeout}s")


async def run_job(http: httpx.AsyncClient, path: str, timeout: float = 10.0) -> dict[str, Any]:
    """Start a job (a POST answering 202 with its id) and wait for it: the job, ended."""
    started = await http.post(path)
    assert started.status_code == 202, started.text
    return await finished(http, started.json()["jobId"], timeout)
