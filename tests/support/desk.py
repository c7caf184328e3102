"""Signing in to the desk as a test's person: a cookie-keeping HTTP client of the API at
``base_url``, signed in with ``key`` through the sign-in form (its CSRF token read from the
form, as a browser sends it)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx


@asynccontextmanager
async def desk_client(base_url: str, key: str, timeout: float = 30) -> AsyncIterator[httpx.AsyncClient]:
    """A client of the desk at ``base_url``, signed in with ``key``."""
    async with httpx.AsyncClient(base_url=base_url, timeout=timeout) as client:
        form = await client.get("/desk/sign-in")
        token = re.search(r'name="csrf" value="([0-9a-f]{64})"', form.text)
        assert token is not None, form.text[:300]
        signed = await client.post("/desk/sign-in", data={"key": key, "csrf": token.group(1)})
        assert signed.status_code == 303, signed.text[:300]
        yield client
