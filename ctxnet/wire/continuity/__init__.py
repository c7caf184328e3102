"""Request and response bodies of session continuity, one module per sub-domain as in
``graph/continuity/``: ``sessions`` (and their tool-call log), ``pending`` actions, the context
``bridge`` (and the agents' configuration of it), the user ``profile``, ``goals``, ``skills``,
saved sessions (``wiki``) and waking up (``wakeup``: catch_up, orient, brief).

What they share lives here: :class:`ActorOut` (its module is part of its schema's name in the
OpenAPI document, ``ctxnet__wire__continuity__ActorOut``, beside ``ctxnet.wire.core``'s)."""

from __future__ import annotations

from ctxnet.wire.base import OutModel


class ActorOut(OutModel):
    """Who made a change: a person or an agent (and which)."""

    role: str | None = None
    agent_id: str | None = None
