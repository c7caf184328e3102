"""``ctxnet models``: the local embedding models' files, fetched and checked."""

from __future__ import annotations

from typing import Annotated

import typer

from ctxnet.commands.runner import fail
from ctxnet.models import fetch_model
from graph.core.embeddings import LOCAL_MODELS, local_model
from graph.core.errors import ContextNetworkError
from graph.core.settings import get_settings

models_app = typer.Typer(help="The local embedding models.", no_args_is_help=True)


# --- ctxnet models ---------------------------------------------------------------------------
@models_app.command("fetch")
def models_fetch(
    every: Annotated[
        bool, typer.Option("--all", help="Every local model, not only the configured one.")
    ] = False,
) -> None:
    """Fetch the local embedding model's files (sha256-checked) into the models folder."""
    settings = get_settings()
    for model in LOCAL_MODELS.values() if every else [local_model(settings)]:
        try:
            fetched = fetch_model(model, settings.resolved_models_dir, settings.maven_repository)
        except ContextNetworkError as exc:
            raise fail(exc.message) from None
        typer.echo(f"{model.name}: {'fetched' if fetched else 'already in place'}")
