"""The ``ctxnet`` commands, one module per group; :mod:`ctxnet.cli` puts them together.

* :mod:`~ctxnet.commands.neo4j`: the local Neo4j server (``ctxnet neo4j``).
* :mod:`~ctxnet.commands.admin`: the schema, API keys and users (``ctxnet db|keys|users``).
* :mod:`~ctxnet.commands.models`: the local embedding models (``ctxnet models``).
* :mod:`~ctxnet.commands.browser`: Neo4j Browser's guide and style (``ctxnet browser``).
* :mod:`~ctxnet.commands.pipelines`: the service's own work run in this process
  (``ctxnet threads|skills|maintenance``).
* :mod:`~ctxnet.commands.import_export`: ``ctxnet import`` and ``ctxnet export`` through the API.
* :mod:`~ctxnet.commands.serve`: ``ctxnet serve`` and ``ctxnet mcp``.
* :mod:`~ctxnet.commands.runner`: how a command runs (settings, one event loop, a database).
"""
