"""``docs/api.md`` is written from the OpenAPI document (``tests/support/api_reference.py``);
like ``docs/openapi.json``, it changes only with the code: after a change to the API, run
``make openapi`` and commit the page with it."""

from __future__ import annotations

import difflib

from api.app import create_app
from tests.support.api_reference import PAGE, render_api_reference


def test_the_api_reference_is_what_the_openapi_document_makes_of_it() -> None:
    document = create_app().openapi()
    current = render_api_reference(document)
    committed = PAGE.read_text(encoding="utf-8")
    if current != committed:
        diff = "".join(
            difflib.unified_diff(
                committed.splitlines(keepends=True),
                current.splitlines(keepends=True),
                "docs/api.md (committed)",
                "from the running code's OpenAPI document",
                n=1,
            )
        )
        raise AssertionError(f"docs/api.md is out of date; run `make openapi`:\n{diff[:6000]}")


def test_every_operation_and_every_constraint_of_its_parameters_is_on_the_page() -> None:
    document = create_app().openapi()
    page = render_api_reference(document)
    missing = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if f"### {method.upper()} {path}\n" not in page:
                missing.append(f"{method.upper()} {path}")
            for parameter in operation.get("parameters", []):
                pattern = parameter.get("schema", {}).get("pattern")
                if pattern is not None and f"pattern `{pattern}`".replace("|", "\\|") not in page:
                    missing.append(f"{method.upper()} {path} {parameter['name']}: pattern {pattern}")
    assert not missing, "not on docs/api.md:\n" + "\n".join(missing)
