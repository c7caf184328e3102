"""``docs/api.md``, the API reference, written from the OpenAPI document so it cannot drift.

Every operation appears with its method, path, summary and description, the parameters and
body fields it takes with their constraints (pattern, lengths, minimum and maximum, default,
allowed values) and the answers it documents; the objects nested in request bodies follow at
the end. ``make openapi`` writes it beside ``docs/openapi.json``, and
``tests/unit/core/test_api_reference.py`` fails when the committed page differs from what
:func:`render_api_reference` makes of the current app's document.

Run as ``python -m tests.support.api_reference`` to rewrite the page.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

PAGE = Path(__file__).resolve().parents[2] / "docs" / "api.md"

#: Section titles and the page that explains each tag's calls; a tag not listed here is
#: shown under its own name.
TAGS: dict[str, tuple[str, str | None]] = {
    "health": ("Health and metrics", "operations.md"),
    "principals": ("Who is calling, and the journal", "journal.md"),
    "journal": ("Undo", "journal.md#undo"),
    "corrections": ("Corrections", "journal.md#corrections"),
    "proposals": ("Proposals", "journal.md#proposals"),
    "knowledge": ("The knowledge network", "knowledge.md"),
    "search": ("Search", "knowledge.md"),
    "conversations": ("Conversation memory", "conversations.md"),
    "continuity": ("Session continuity", "continuity.md"),
    "project": ("Project context", "project.md"),
    "maintenance": ("Maintenance", "maintenance.md"),
    "forget": ("Forgetting", "forgetting.md"),
}

#: The answers every ``/v1`` operation can give; listed once at the top, not per operation.
COMMON = frozenset({"401", "413", "415", "422", "429", "503"})

PREAMBLE = """\
# The API

[← README](../README.md)

<!-- Generated from the OpenAPI document by tests/support/api_reference.py: edit the code or
its docstrings, then run `make openapi`; a unit test fails when this page is out of date. -->

JSON in camelCase. The OpenAPI document is served at `/openapi.json` (browse it at
http://127.0.0.1:8000/docs) and committed as [`openapi.json`](openapi.json); a unit test
keeps the code to it, and this page is written from it.

- **Keys.** Every `/v1` call needs `Authorization: Bearer <key>` (keys: [the CLI](cli.md)).
  A key resolves to a user (whose data the call may see), a role, `human` or `agent`, and
  optionally an agent id and an entity scope
  ([scoped keys](continuity.md#keys-scoped-to-part-of-the-memory)).
- **Sessions.** `X-Session-ID: <session id>` on a call records, in the journal, the session
  it was made in: an open session of the caller's own agent (for a person's key, any open
  session of the user); 422 otherwise. `X-Change-Reason` says why a person made a
  correction (at most 500 characters).
- **Errors** are `{"error": {"code", "message", "field"}}` (`details` lists every problem of
  an invalid input). Every `/v1` operation can answer 401 (no key, or an unknown or revoked
  one), 422 (invalid input, naming the field), 429 (over the key's rate limit, off unless
  configured; retry after `Retry-After`) and 503 (Neo4j away; the service recovers by
  itself when it returns); one with a body also 413 (a body over its route's limit) and 415
  (a body that is not JSON). The answers particular to an operation are listed with it:
  403 (an agent deciding a proposal; a scoped key outside its scope), 404 (nothing of that
  id for this user: another user's ids are not found either), 409, 502 (the embedder
  failed), and the 202 of a write a person's word holds back as a proposal.
- **Ids** of notes, threads, sessions and the rest: 1-128 characters of
  `A-Z a-z 0-9 . _ : @ -`, starting with a letter or digit. **Pages**: a list gives at most
  `limit` items and at most `CTXNET_PAGE_BYTES` (384 KiB) of them, one item at least, so a
  page of large items holds fewer; its `nextCursor` goes on from there. **Cursors** are
  opaque: pass back the `nextCursor` a list answered; no `nextCursor`, no more items.
- Every response carries `X-Request-ID` (yours, or a new one), and every log line is JSON
  with that request id ([Operations](operations.md)).
"""


def render_api_reference(document: dict[str, Any]) -> str:
    """The whole page for this OpenAPI document."""
    reference = _Reference(document)
    return reference.render()


class _Reference:
    """One rendering of one document: the operations by tag, then the nested request objects."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        self.schemas: dict[str, Any] = document.get("components", {}).get("schemas", {})
        #: Object schemas named in request bodies below their top level, in order of first use.
        self.nested: list[str] = []

    def render(self) -> str:
        groups: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
        for path, operations in self.document["paths"].items():
            for method, operation in operations.items():
                tag = (operation.get("tags") or ["other"])[0]
                groups.setdefault(tag, []).append((method.upper(), path, operation))
        lines = [PREAMBLE]
        lines.append("## Contents\n")
        for tag, operations in groups.items():
            title, _ = TAGS.get(tag, (tag.capitalize(), None))
            calls = ", ".join(f"[`{m} {p}`](#{_slug(f'{m} {p}')})" for m, p, _ in operations)
            lines.append(f"- **{title}**: {calls}")
        lines.append("")
        body = []
        for tag, operations in groups.items():
            title, page = TAGS.get(tag, (tag.capitalize(), None))
            body.append(f"## {title}\n")
            if page:
                body.append(f"What these calls are for, and how they fit together: [{page}]({page}).\n")
            for method, path, operation in operations:
                body.extend(self._operation(method, path, operation))
        lines.extend(body)
        lines.extend(self._nested_objects())
        return "\n".join(lines).rstrip("\n") + "\n"

    # --- one operation ---------------------------------------------------------------------
    def _operation(self, method: str, path: str, operation: dict[str, Any]) -> list[str]:
        out = [f"### {method} {path}\n"]
        summary = operation.get("summary", "")
        description = operation.get("description", "").strip()
        out.append(f"**{summary}.** {description}\n" if description else f"**{summary}.**\n")
        parameters = operation.get("parameters", [])
        if parameters:
            out.append("| Parameter | In | Type | Constraints | Description |")
            out.append("|---|---|---|---|---|")
            for parameter in parameters:
                schema = parameter.get("schema", {})
                name = f"`{parameter['name']}`" + (" (required)" if parameter.get("required") else "")
                text = parameter.get("description") or schema.get("description", "")
                cells = [name, parameter["in"], self._type(schema), _constraints(schema, self), text]
                out.append(_row(cells))
            out.append("")
        body = operation.get("requestBody")
        if body is not None:
            out.extend(self._body(body))
        out.append(self._answers(operation.get("responses", {}), common=path.startswith("/v1/")))
        out.append("")
        return out

    def _body(self, body: dict[str, Any]) -> list[str]:
        schema = body.get("content", {}).get("application/json", {}).get("schema", {})
        optional = not body.get("required", False)
        branches = schema.get("anyOf")
        if branches:  # ``{...} | null``: the body may be left out
            optional = optional or any(b.get("type") == "null" for b in branches)
            schema = next(b for b in branches if b.get("type") != "null")
        name = _ref_name(schema)
        resolved = self.schemas[name] if name else schema
        title = name or resolved.get("title", "")
        head = f"Body: `{title}`" + (" (may be left out)" if optional else "")
        description = resolved.get("description")
        out = [f"{head}. {description}\n" if description else f"{head}.\n"]
        out.extend(self._fields(resolved))
        return out

    def _fields(self, schema: dict[str, Any]) -> list[str]:
        """A table of an object schema's fields, or nothing for a schema without fields."""
        properties: dict[str, Any] = schema.get("properties", {})
        if not properties:
            return []
        required = set(schema.get("required", []))
        out = ["| Field | Type | Constraints | Description |", "|---|---|---|---|"]
        for field, spec in properties.items():
            name = f"`{field}`" + (" (required)" if field in required else "")
            out.append(_row([name, self._type(spec), _constraints(spec, self), spec.get("description", "")]))
        out.append("")
        return out

    def _answers(self, responses: dict[str, Any], common: bool) -> str:
        """The answers particular to this operation (with ``common``, those of every ``/v1``
        operation are left to the top of the page)."""
        parts = []
        for status, answer in sorted(responses.items()):
            if common and status in COMMON:
                continue
            text = answer.get("description", "")
            content = answer.get("content", {})
            schema = content.get("application/json", {}).get("schema")
            if schema is not None and _ref_name(schema) != "ErrorOut":
                shape = self._shape(schema)
                generic = text in {"Successful Response", ""}
                parts.append(f"{status} {shape}" if generic else f"{status} {shape}: {text}")
            elif schema is None and content:
                parts.append(f"{status} `{next(iter(content))}`")
            else:
                parts.append(f"{status}: {text}" if text else status)
        return "Answers: " + "; ".join(parts) + "." if parts else ""

    def _shape(self, schema: dict[str, Any]) -> str:
        """An answer's schema by name with its top-level fields: ``NoteOut {node}``."""
        name = _ref_name(schema)
        if name is None:
            items = schema.get("items", {})
            return f"array of {self._shape(items)}" if schema.get("type") == "array" else "JSON"
        fields = list(self.schemas.get(name, {}).get("properties", {}))
        return f"`{name}` `{{{', '.join(fields)}}}`" if fields else f"`{name}`"

    # --- types -----------------------------------------------------------------------------
    def _type(self, schema: dict[str, Any]) -> str:
        name = _ref_name(schema)
        if name is not None:
            target = self.schemas.get(name, {})
            if "enum" in target:
                return " | ".join(f"`{json.dumps(v)}`" for v in target["enum"])
            if target.get("properties") and name not in self.nested:
                self.nested.append(name)
            return f"[`{name}`](#{_slug(name)})" if target.get("properties") else f"`{name}`"
        if "anyOf" in schema:
            branches = [b for b in schema["anyOf"] if b.get("type") != "null"]
            nullable = len(branches) < len(schema["anyOf"])
            text = " or ".join(self._type(b) for b in branches)
            return f"{text} or null" if nullable else text
        if "const" in schema:
            return f"`{json.dumps(schema['const'])}`"
        if "enum" in schema:
            return " | ".join(f"`{json.dumps(v)}`" for v in schema["enum"])
        kind = schema.get("type")
        if kind == "array":
            item = self._type(schema.get("items", {}))
            return f"array of ({item})" if " | " in item or " or " in item else f"array of {item}"
        if kind == "object":
            values = schema.get("additionalProperties")
            if isinstance(values, dict) and values:
                return f"object of {self._type(values)}"
            return "object"
        if kind is None:
            return "any JSON"
        return f"{kind} ({schema['format']})" if "format" in schema else str(kind)

    def _nested_objects(self) -> list[str]:
        """The objects request bodies hold, each with its fields (a table may name more)."""
        if not self.nested:
            return []
        out = ["## Objects inside request bodies\n"]
        done: set[str] = set()
        while len(done) < len(self.nested):
            name = next(n for n in self.nested if n not in done)
            done.add(name)
            schema = self.schemas[name]
            out.append(f"### {name}\n")
            if schema.get("description"):
                out.append(f"{schema['description']}\n")
            out.extend(self._fields(schema))
        return out


def _constraints(schema: dict[str, Any], reference: _Reference) -> str:
    """What a value must be beyond its type, and its default."""
    parts: list[str] = []
    for branch in schema.get("anyOf", []):
        if branch.get("type") != "null" and "$ref" not in branch:
            parts.extend(_bounds(branch))
    parts.extend(_bounds(schema))
    items = schema.get("items")
    if isinstance(items, dict) and "$ref" not in items:
        parts.extend(f"each {part}" for part in _bounds(items))
    if "default" in schema:
        parts.append(f"default `{json.dumps(schema['default'])}`")
    return "; ".join(parts)


def _bounds(schema: dict[str, Any]) -> list[str]:
    parts = []
    if "pattern" in schema:
        parts.append(f"pattern `{schema['pattern']}`")
    low, high = schema.get("minLength"), schema.get("maxLength")
    if low is not None or high is not None:
        parts.append(_range(low, high, "characters"))
    low, high = schema.get("minItems"), schema.get("maxItems")
    if low is not None or high is not None:
        parts.append(_range(low, high, "items"))
    low, high = schema.get("minProperties"), schema.get("maxProperties")
    if low is not None or high is not None:
        parts.append(_range(low, high, "entries"))
    if "minimum" in schema and "maximum" in schema:
        parts.append(f"from {_number(schema['minimum'])} to {_number(schema['maximum'])}")
    else:
        for key, sign in (("minimum", "≥"), ("maximum", "≤")):
            if key in schema:
                parts.append(f"{sign} {_number(schema[key])}")
    for key, sign in (("exclusiveMinimum", ">"), ("exclusiveMaximum", "<")):
        if key in schema:
            parts.append(f"{sign} {_number(schema[key])}")
    names = schema.get("propertyNames")
    if isinstance(names, dict):
        parts.extend(f"names {part}" for part in _bounds(names))
    bounded = schema.get("x-bounded-json")
    if isinstance(bounded, dict):
        depth = bounded["maxDepth"]
        if "maxChars" in bounded:
            parts.append(
                f"at most {bounded['maxChars']:,} characters as compact JSON, nested at most {depth} deep"
            )
        else:
            parts.append(f"at most {bounded['maxBytes']:,} bytes of JSON, nested at most {depth} deep")
    return parts


def _range(low: Any, high: Any, unit: str) -> str:
    if low is not None and high is not None:
        return f"{_number(low)}-{_number(high)} {unit}"
    if low is not None:
        return f"at least {_number(low)} {unit}"
    return f"at most {_number(high)} {unit}"


def _number(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{value:,}" if isinstance(value, int) and abs(value) >= 10_000 else str(value)


def _ref_name(schema: dict[str, Any]) -> str | None:
    ref = schema.get("$ref")
    return ref.rsplit("/", 1)[-1] if isinstance(ref, str) else None


def _row(cells: list[str]) -> str:
    """A table row; pipes and line breaks inside a cell would break the table."""
    clean = [re.sub(r"\s*\n\s*", " ", c).replace("|", "\\|") for c in cells]
    return "| " + " | ".join(clean) + " |"


def _slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def main() -> None:
    """Rewrite docs/api.md from the current app's OpenAPI document."""
    from api.app import create_app

    PAGE.write_text(render_api_reference(create_app().openapi()), encoding="utf-8")


if __name__ == "__main__":
    main()
