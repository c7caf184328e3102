"""A forget's match as the domain takes it."""

from __future__ import annotations

from ctxnet.wire.forget import ForgetMatchIn
from graph.project.forget import ForgetMatch


def forget_match(body: ForgetMatchIn) -> ForgetMatch:
    """The match as the service takes it."""
    return ForgetMatch(
        ids=tuple(body.ids) if body.ids is not None else None,
        tags=tuple(t.strip() for t in body.tags) if body.tags is not None else None,
        query=body.query.strip() if body.query is not None else None,
        source=body.source,
        before=body.before,
        after=body.after,
    )
