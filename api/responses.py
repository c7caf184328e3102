"""A JSON response rendered by pydantic-core (Rust) instead of the ``json`` module.

For plain dicts the service already shaped (search results: dozens of notes and edges),
rendering took ~0.45 ms of a ~9 ms search with ``json.dumps``; ``to_json`` is about 3x
faster and writes the same compact UTF-8 JSON.
"""

from __future__ import annotations

from typing import Any

from fastapi.responses import JSONResponse
from pydantic_core import to_json


class FastJSONResponse(JSONResponse):
    """``JSONResponse`` rendered with ``pydantic_core.to_json``."""

    def render(self, content: Any) -> bytes:
        """The body bytes."""
        return to_json(content)
