"""A real browser for the Browser tests: Debian's chromium, installed here when it is missing."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

#: Screenshots of the runs, kept for people to look at (ignored by git).
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
#: apt can wait on a slow mirror; past this, the run fails and says so instead of hanging CI.
INSTALL_TIMEOUT_SECONDS = 600


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="session")
def chromium() -> str:
    """The path of Debian's chromium, ``apt-get install``-ed on a machine that lacks it (CI's
    fresh machines do). Fails, never skips: a browser test that did not run has not passed."""
    found = _chromium()
    if found is not None:
        return found
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    steps = (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "chromium"])
    for step in steps:
        try:
            done = subprocess.run(
                step, env=env, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_SECONDS, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            pytest.fail(f"installing chromium failed at `{' '.join(step)}`: {exc}")
        if done.returncode != 0:
            pytest.fail(f"installing chromium failed at `{' '.join(step)}`:\n{done.stderr[-2000:]}")
    found = _chromium()
    if found is None:
        pytest.fail("apt-get installed chromium, but no chromium is on PATH")
    return found


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Where screenshots go: ``tests/artifacts/``."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
