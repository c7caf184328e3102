"""The wire contract of API v1: every request and response model, ids, cursors and their
encoding, the error body, the vocabulary (:mod:`~ctxnet.wire.vocabulary`) and the contract's
limits, one module per domain as in ``graph/``.

It imports the standard library, pydantic and pydantic_core, nothing of the service (held by
``tests/unit/core/test_layers.py``): the API validates and documents with it, the Python
client and the MCP server speak it, and a client installs it without the server. The limits
a server's settings decide reach its validators through :mod:`~ctxnet.wire.limits`.
"""
