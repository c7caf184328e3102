"""The one scope rule, kept where the services read and write, so every front end (the API,
the desk, MCP, the CLI) inherits it.

A key with an entity scope (:class:`graph.core.principals.Scope`) reaches only the notes its
scope holds. A service method that takes a :class:`Principal` does one of two things with it:

- it narrows what it reads or writes by the scope (``principal.scope`` passed to its
  queries, ``principal.sees(...)`` and the like), so a scoped key gets only its part; or
- it refuses a scoped key outright with :func:`require_unscoped`, because what it reaches is
  not divided by notes (conversations, insights, the profile, proposals, undo, project
  context, agents' docs, forgetting, export and restore, maintenance): no part of it is
  inside any scope.

``tests/unit/core/test_scope_rule.py`` reads the code and fails on a public method of a
service that takes a principal and does neither (or is not listed there with its reason).
"""

from __future__ import annotations

from graph.core.errors import Forbidden
from graph.core.principals import Principal


def require_unscoped(principal: Principal, what: str) -> None:
    """Refuse a scoped key (:class:`Forbidden`, 403, naming the key) what reaches memory that is
    not divided by notes; ``what`` says what it asked for, as a person reads it."""
    if principal.scope is not None:
        raise Forbidden(
            f"this key is scoped to part of the user's knowledge ({principal.scope.describe()}), and "
            f"{what} lies outside any scope: use an unscoped key",
            field="scope",
        )
