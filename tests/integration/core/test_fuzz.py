"""Schemathesis over the live OpenAPI document: generated requests to every operation, each
sent with a valid key, never get a 5xx, nor a status, content type or body the document
does not declare.

The operations come from the running API's ``/openapi.json``, so an endpoint added tomorrow
is fuzzed without touching this file; and the test fails unless every operation listed in
that document (read directly, not through schemathesis) was actually called, so it cannot
pass by testing nothing.

Budget: ``MAX_EXAMPLES`` (10) generated cases per operation, schema-valid and schema-invalid
mixed, so at most 10 requests per operation (one without parameters or body has a single
distinct case, and gets one request): about 250 requests for the 28 operations of today,
15-25 s on a 2-core machine, plus the API's start when this test is the first to need it.
On a route with ``{id}`` half of the cases name a note, thread or job this test made, so
200 bodies are checked too, not only 404s. The inputs are random, new on every run; no
shrinking, since each step would be another request and a failing run would take
unbounded time. Every operation that failed is reported, each with the curl command that
reproduces it.

Every request carries the key of this test's own fresh user (which make_caller forgets
afterwards), so whatever is generated is written to that user's data and nobody else's.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import hypothesis
import pytest
import requests
import schemathesis
from hypothesis import strategies as st
from hypothesis.configuration import set_hypothesis_home_dir
from schemathesis import APIOperation, Case, GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.errors import FailureGroup
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from graph.core.principals import Role
from tests.integration.conftest import Caller, MakeCaller, correct_and_propose
from tests.support.resources import RESOURCES
from tests.support.servers import ApiProcess

#: Generated cases per operation (schema-valid and schema-invalid together).
MAX_EXAMPLES = 10
#: Exactly these checks: a 5xx, or a status, content type or body the document does not declare.
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]

#: The keys of an OpenAPI path item that are operations.
METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}

Operation = APIOperation[Any, Any, Any, Any]

SETTINGS = hypothesis.settings(
    max_examples=MAX_EXAMPLES,
    database=None,  # no example database written into the repository
    deadline=None,  # a request's time is the API's, not the generator's, and it varies
    phases=[hypothesis.Phase.explicit, hypothesis.Phase.generate],  # no shrinking (see above)
    # A schema-invalid strategy for an operation with nothing to break (no parameters, no
    # body) rejects every draw, and generating some bodies is slow: neither is a bug here.
    suppress_health_check=list(hypothesis.HealthCheck),
    print_blob=False,
)


@pytest.fixture(autouse=True)
def hypothesis_home(tmp_path: Path) -> Iterator[None]:
    """Hypothesis keeps caches (unicode tables, constants) under ``./.hypothesis`` even with
    no example database: point it at a temporary directory, so nothing lands in the repo."""
    set_hypothesis_home_dir(tmp_path / "hypothesis")
    yield
    set_hypothesis_home_dir(None)


async def seed(caller: Caller) -> dict[str, str]:
    """A thread with a message, the job that extracts from it, sessions (one saved as a wiki
    page), a goal, a skill, a decision and an agent's docs, all the caller's."""
    thread = f"fuzz-thread-{uuid.uuid4().hex[:8]}"
    made = await caller.http.post("/v1/threads", json={"id": thread, "topic": "tea"})
    assert made.status_code == 201, made.text
    said = {"messages": [{"role": "user", "content": "I prefer green tea in the morning."}]}
    assert (await caller.http.post(f"/v1/threads/{thread}/messages", json=said)).status_code == 201
    extract = await caller.http.post(f"/v1/threads/{thread}/extract")
    assert extract.status_code == 202, extract.text
    session = await caller.http.post("/v1/sessions", json={"agentId": "fuzz-agent", "topic": "tea"})
    assert session.status_code == 201, session.text
    ended = await caller.http.post("/v1/sessions", json={"agentId": "fuzz-agent", "topic": "coffee"})
    end = {"summary": "We talked.", "pendingActions": ["Buy tea"]}
    left = await caller.http.post(f"/v1/sessions/{ended.json()['session']['id']}/end", json=end)
    assert left.status_code == 200, left.text
    page = {"summary": "Tea chosen.", "insights": [{"type": "fact", "content": f"Tea {n}"} for n in range(3)]}
    saved = await caller.http.post(f"/v1/sessions/{ended.json()['session']['id']}/save", json=page)
    assert saved.status_code == 201, saved.text
    goal = await caller.http.post("/v1/goals", json={"title": "Fuzz the API"})
    assert goal.status_code == 201, goal.text
    skill = {"id": "fuzz:skill", "name": "Fuzz", "bodyMd": "Send odd input."}
    assert (await caller.http.post("/v1/skills", json=skill)).status_code == 201
    decision = {
        "id": "fuzz-adr",
        "title": "Tea first",
        "context": "Mornings.",
        "decision": "Tea before code.",
    }
    assert (await caller.http.post("/v1/decisions", json=decision)).status_code == 201
    docs = {"capabilities": ["Brew tea."], "baseInstructions": "You fuzz."}
    assert (await caller.http.put("/v1/agents/fuzz-agent/docs", json=docs)).status_code == 200
    return {
        "decision": "fuzz-adr",
        "agent": "fuzz-agent",
        "goal": goal.json()["id"],
        "skill": "fuzz:skill",
        "thread": thread,
        "job": extract.json()["jobId"],
        "session": session.json()["session"]["id"],
        "pending": left.json()["pendingActions"][0]["id"],
    }


def fuzz(base_url: str, key: str, ids: dict[str, str]) -> tuple[list[str], Counter[str], dict[str, str]]:
    """Fuzz every operation of the live document: return the operations the document lists,
    how many requests each got, and the failure report of each one that failed."""
    headers = {"Authorization": f"Bearer {key}"}
    schema = schemathesis.openapi.from_url(f"{base_url}/openapi.json")
    # The key is sent with every request (``headers``); without this, schemathesis would
    # also generate the bearer header itself, and drop it from schema-invalid cases, which
    # would then test a 401 instead of the operation.
    schema.config.generation.update(with_security_parameters=False)
    calls: Counter[str] = Counter()
    failures: dict[str, str] = {}
    with requests.Session() as session:
        document = session.get(f"{base_url}/openapi.json", timeout=30).json()
        listed = [
            f"{method.upper()} {path}"
            for path, item in document["paths"].items()
            for method in item
            if method in METHODS  # a path item may also hold shared `parameters`, a `summary`...
        ]
        for label in listed:
            method, path = label.split(" ", 1)
            try:
                operation = schema[path][method]
                if path.startswith("/v1/knowledge/{id}"):
                    # A note of its own: a DELETE in an earlier operation may have taken the last.
                    ids["note"] = _fresh_note(session, base_url, headers)

                @SETTINGS
                @hypothesis.given(case=_cases(operation, ids))
                def send(case: Case[Any]) -> None:
                    calls[case.operation.label] += 1
                    case.call_and_validate(base_url=base_url, session=session, headers=headers, checks=CHECKS)

                send()
            # Report every operation that fails, not only the first. Schemathesis raises a
            # FailureGroup, which is a BaseExceptionGroup, not an Exception.
            except (Exception, BaseExceptionGroup) as exc:
                failures[label] = _describe(exc)
    return listed, calls, failures


def _fresh_note(session: requests.Session, base_url: str, headers: dict[str, str]) -> str:
    """A new note of the caller's (not folded into an earlier one: ``dedupe`` is off)."""
    note_id = f"fuzz-note-{uuid.uuid4().hex[:8]}"
    note: dict[str, Any] = {
        "id": note_id,
        "title": "Tea",
        "content": "Green tea.",
        "type": "fact",
        "dedupe": False,
    }
    made = session.post(f"{base_url}/v1/knowledge", json=note, headers=headers, timeout=30)
    assert made.status_code == 201, made.text
    return note_id


def _cases(operation: Operation, ids: dict[str, str]) -> st.SearchStrategy[Case[Any]]:
    """Schema-valid and schema-invalid cases; on a ``{id}`` route, half on one of the user's ids."""
    strategies = [operation.as_strategy(generation_mode=mode) for mode in GenerationMode]
    resource = RESOURCES.get(operation.path.split("/")[2]) if operation.path.startswith("/v1/") else None
    if resource is not None and "{id}" in operation.path:
        mine = {"id": ids[resource]}
        strategies += [
            operation.as_strategy(generation_mode=mode, path_parameters=mine) for mode in GenerationMode
        ]
    return st.one_of(strategies)


def _describe(exc: BaseException) -> str:
    """A failure as schemathesis words it (each failed check, the response, the curl command
    that reproduces it); anything else with its type, and each exception of a group."""
    if isinstance(exc, FailureGroup):
        return str(exc)
    parts = [f"{type(exc).__name__}: {exc}", *getattr(exc, "__notes__", [])]
    if isinstance(exc, BaseExceptionGroup):
        parts += [_describe(inner) for inner in exc.exceptions]
    return "\n".join(parts)


async def test_every_operation_of_the_live_document_survives_fuzzing(
    make_caller: MakeCaller, api: ApiProcess
) -> None:
    caller = await make_caller()
    ids = await seed(caller)
    agent = await make_caller(Role.AGENT, agent_id="fuzz-agent", user_id=caller.user_id)
    ids |= await correct_and_propose(caller, agent, "fuzz-corrected", "The fuzz port is 8080.")
    listed, calls, failures = await asyncio.to_thread(fuzz, api.base_url, caller.key, ids)

    report = "\n\n".join(f"=== {label}\n{text}" for label, text in failures.items())
    assert not failures, f"{len(failures)} of {len(listed)} operations failed:\n\n{report}"
    assert listed, "the live document lists no operations"
    missed = [label for label in listed if calls[label] == 0]
    assert not missed, f"operations in the document that were never called: {missed}"
    assert set(calls) == set(listed), f"called but not in the document: {set(calls) - set(listed)}"
