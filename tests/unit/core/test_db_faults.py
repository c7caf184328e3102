"""Which of Neo4j's client errors are the caller's (a 422 naming the value) and which are a
statement's own fault (a 500 with the request's id): a statement that reads a node it has
just deleted answered ``422 invalid_input`` before (review N4's chain of supersessions)."""

from __future__ import annotations

import pytest
from neo4j.exceptions import ClientError, Neo4jError

from graph.core.db import translate_errors
from graph.core.errors import InvalidInput


def _error(code: str) -> ClientError:
    error = Neo4jError._hydrate_neo4j(code=code, message="the statement failed")
    assert isinstance(error, ClientError)
    return error


@pytest.mark.parametrize(
    "code",
    [
        "Neo.ClientError.Statement.EntityNotFound",
        "Neo.ClientError.Statement.SyntaxError",
        "Neo.ClientError.Statement.SemanticError",
        "Neo.ClientError.Statement.ParameterMissing",
        "Neo.ClientError.Schema.IndexNotFound",
    ],
)
async def test_a_statements_own_fault_is_not_blamed_on_the_caller(code: str) -> None:
    with pytest.raises(ClientError):
        async with translate_errors():
            raise _error(code)


@pytest.mark.parametrize(
    "code", ["Neo.ClientError.Statement.ArgumentError", "Neo.ClientError.Statement.TypeError"]
)
async def test_a_value_neo4j_refuses_is_the_callers(code: str) -> None:
    with pytest.raises(InvalidInput):
        async with translate_errors():
            raise _error(code)
