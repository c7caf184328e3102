"""``ctxnet``: run the local Neo4j, migrate the schema, manage API keys, serve the API.

The app is put together here from the command groups of :mod:`ctxnet.commands`, one module
per group; ``ctxnet = "ctxnet.cli:app"`` is the entry point.
"""

from __future__ import annotations

import typer

from ctxnet.commands.admin import db_app, keys_app, users_app
from ctxnet.commands.browser import browser_app
from ctxnet.commands.import_export import export, import_
from ctxnet.commands.models import models_app
from ctxnet.commands.neo4j import neo4j_app
from ctxnet.commands.pipelines import maintenance, skills_app, threads_app
from ctxnet.commands.serve import mcp, serve

app = typer.Typer(help="Context Network: memory and knowledge for AI agents.", no_args_is_help=True)
app.add_typer(neo4j_app, name="neo4j")
app.add_typer(db_app, name="db")
app.add_typer(keys_app, name="keys")
app.add_typer(users_app, name="users")
app.add_typer(threads_app, name="threads")
app.add_typer(skills_app, name="skills")
app.add_typer(models_app, name="models")
app.add_typer(browser_app, name="browser")
app.command("maintenance")(maintenance)
app.command("mcp")(mcp)
app.command("import")(import_)
app.command("export")(export)
app.command("serve")(serve)


if __name__ == "__main__":
    app()
