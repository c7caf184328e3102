"""The desk's pages and forms, walked as the sweeps walk the OpenAPI document: every route of
the app under ``/desk``, each parameter (path, query, form field) placed on one of the owner's
things by its name. A route with a parameter :data:`PLACES` does not know is returned as
unplaced, so a new page or form fails its sweep until it is taught here."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute

#: Desk routes the sweeps do not call, and why.
EXEMPT = {
    ("GET", "/desk/static/{name}"): "the desk's own files (htmx, the style sheet): no user data",
    ("GET", "/desk/sign-in"): "before any session; the sweep signs in through it",
    ("POST", "/desk/sign-in"): "before any session; the sweep signs in through it",
    ("POST", "/desk/sign-out"): "ends the sweep's own session (tests/integration/desk/test_desk_http.py)",
}


@dataclass(frozen=True)
class Thing:
    """One of the owner's things, by its kind in the sweep's ids (``ids[kind]``)."""

    kind: str


#: The session's CSRF token, in a form field.
CSRF = Thing("csrf")

#: The values each parameter of a desk route takes, by its name (or alias): the owner's things
#: (live, deleted, and the mutations of both) and the literal choices of a form. Each route is
#: called once per combination. ``None``: the parameter is left out.
PLACES: dict[str, tuple[Any, ...]] = {
    "note_id": (Thing("note"), Thing("note2"), Thing("deleted")),
    "mutation_id": (Thing("mutation"), Thing("deleted_mutation")),
    "mutation": (Thing("deleted_mutation"), Thing("mutation")),
    "id": (Thing("proposal"),),
    "session": (None, Thing("session")),
    "agent": (None, Thing("agent")),
    "q": (Thing("query"),),
    "layer": (None,),
    "kind": (None,),
    "since": (None,),
    "until": (None,),
    "cursor": (None,),
    "action": ("approve", "reject"),
    "status": ("archived", "active"),
    "title": ("Taken over by a scoped key",),
    "content": ("A scoped key wrote this.",),
    "title_was": (None, Thing("title_was")),
    "content_was": (None, Thing("content_was")),
    "reason": (None, "scope sweep"),
    "csrf": (CSRF,),
}


@dataclass(frozen=True)
class DeskCall:
    """One call of a desk route: method, URL, query and form (``None``: a GET)."""

    method: str
    template: str
    url: str
    query: dict[str, str]
    form: dict[str, str] | None


def _routes(app: FastAPI) -> Iterator[APIRoute]:
    """Every API route of ``app``, through the routers it includes."""

    def walk(routes: list[Any]) -> Iterator[APIRoute]:
        for route in routes:
            inner = getattr(route, "original_router", None)  # an included router
            if inner is not None:
                yield from walk(inner.routes)
            elif isinstance(route, APIRoute):
                yield route

    yield from walk(app.router.routes)


def _params(dependant: Dependant) -> tuple[list[str], list[str], list[str]]:
    """The path, query and form parameters of a route, its dependencies' included."""
    path = [p.alias for p in dependant.path_params]
    query = [p.alias for p in dependant.query_params]
    form = [p.alias for p in dependant.body_params]
    for sub in dependant.dependencies:
        more = _params(sub)
        path, query, form = path + more[0], query + more[1], form + more[2]
    return list(dict.fromkeys(path)), list(dict.fromkeys(query)), list(dict.fromkeys(form))


def desk_routes(app: FastAPI) -> list[tuple[str, str, APIRoute]]:
    """Every desk route of the app but :data:`EXEMPT`, as (method, path, route)."""
    found = []
    for route in _routes(app):
        if route.path.startswith("/desk"):
            for method in sorted(route.methods or ()):
                if (method, route.path) not in EXEMPT:
                    found.append((method, route.path, route))
    return found


def desk_calls(app: FastAPI, ids: dict[str, str]) -> tuple[list[DeskCall], list[str]]:
    """Every call of every desk route (a GET is a page, a POST a form), each parameter placed
    by :data:`PLACES` on ``ids`` (which holds ``csrf`` too); and the routes it cannot place."""
    calls: list[DeskCall] = []
    unplaced: list[str] = []
    for method, path, route in desk_routes(app):
        in_path, in_query, in_form = _params(route.dependant)
        names = [*in_path, *in_query, *in_form]
        unknown = [n for n in names if n not in PLACES]
        if unknown:
            unplaced.append(f"{method} {path}: {', '.join(unknown)}")
            continue
        for values in itertools.product(*(PLACES[n] for n in names)):
            chosen = {
                n: ids[v.kind] if isinstance(v, Thing) else v for n, v in zip(names, values, strict=True)
            }
            url = path
            for name in in_path:
                url = url.replace("{" + name + "}", str(chosen[name]))
            query = {n: str(chosen[n]) for n in in_query if chosen[n] is not None}
            form = {n: str(chosen[n]) for n in in_form if chosen[n] is not None}
            calls.append(DeskCall(method, path, url, query, form if method == "POST" else None))
    return calls, unplaced
