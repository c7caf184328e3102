"""The OpenAPI document is the contract agent tools are written against: it changes only
on purpose. A change shows up here as a diff against ``docs/openapi.json``; if it is
intended, regenerate the file with ``make openapi`` and commit both together."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

from api.app import create_app

CONTRACT = Path(__file__).resolve().parents[3] / "docs" / "openapi.json"


def render_openapi() -> str:
    """The document exactly as ``make openapi`` writes it."""
    return json.dumps(create_app().openapi(), indent=2) + "\n"


def test_the_openapi_document_is_byte_identical_to_the_committed_contract() -> None:
    current = render_openapi()
    committed = CONTRACT.read_text(encoding="utf-8")
    if current != committed:
        diff = "".join(
            difflib.unified_diff(
                committed.splitlines(keepends=True),
                current.splitlines(keepends=True),
                "docs/openapi.json (committed)",
                "the running code",
                n=2,
            )
        )
        raise AssertionError(
            f"the API contract changed; if that is intended, run `make openapi`:\n{diff[:6000]}"
        )


def test_every_operation_documents_the_errors_every_route_can_answer() -> None:
    document = create_app().openapi()
    error = {"$ref": "#/components/schemas/ErrorOut"}
    missing = []
    for path, operations in document["paths"].items():
        if not path.startswith("/v1/"):
            continue
        for method, operation in operations.items():
            body = {"413", "415"} if "requestBody" in operation else set()
            expected = {"401", "422", "429", "503"} | body
            for status in sorted(expected):
                answer = operation["responses"].get(status, {})
                if answer.get("content", {}).get("application/json", {}).get("schema") != error:
                    missing.append(f"{method.upper()} {path} {status}")
    assert not missing, "undocumented error answers (use ctxnet.wire.errors.answers):\n" + "\n".join(missing)
