"""The entry points of the ``ctxnet`` and ``ctxnet-mcp`` commands: each runs its command, or,
in an install without the dependencies it needs (the light client is the base install), says
in one line what to install instead of a traceback."""

from __future__ import annotations

import sys

#: The project's own packages: a module of theirs missing is a bug, not an install to fix.
PROJECT = frozenset({"ctxnet", "api", "graph", "cypher"})
SERVER_HINT = (
    "ctxnet: the command line runs the service and needs its dependencies ({missing} is not "
    "installed): pip install 'context-network[server]' (the MCP server alone: "
    "pip install 'context-network[mcp]', then ctxnet-mcp)"
)
MCP_HINT = "ctxnet-mcp: the MCP server needs the mcp package ({missing} is not installed): " + (
    "pip install 'context-network[mcp]'"
)


def _missing(exc: ModuleNotFoundError) -> str:
    """The third-party package whose absence ``exc`` reports; re-raised if it is the project's."""
    missing = (exc.name or "").partition(".")[0]
    if not missing or missing in PROJECT:
        raise exc
    return missing


def main() -> None:
    """Run the ``ctxnet`` command line."""
    try:
        from ctxnet.cli import app
    except ModuleNotFoundError as exc:
        sys.exit(SERVER_HINT.format(missing=_missing(exc)))
    app()


def mcp() -> None:
    """Run ``ctxnet-mcp``: the MCP server alone (:func:`ctxnet.mcp_server.main`)."""
    try:
        from ctxnet.mcp_server import main as serve
    except ModuleNotFoundError as exc:
        sys.exit(MCP_HINT.format(missing=_missing(exc)))
    serve()
