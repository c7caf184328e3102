"""The server's side of the wire: each request model of :mod:`ctxnet.wire` turned into the
domain's own model (``new_note(body)``), one module per domain as in ``graph/``. The models
themselves are the wire's; a route validates a body with one and hands the domain what a
converter here makes of it."""
