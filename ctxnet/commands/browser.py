"""``ctxnet browser``: Neo4j Browser's guide and style, as the API serves them
(:mod:`graph.core.browser_guide`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from graph.core.browser_guide import api_base_url, guide_url, render_guide, style_text, style_url
from graph.core.settings import get_settings

browser_app = typer.Typer(help="Neo4j Browser: the guide and the style.", no_args_is_help=True)


# --- ctxnet browser --------------------------------------------------------------------------
ApiUrl = Annotated[
    str | None,
    typer.Option("--url", help="The API that serves the guide [default: the local one, from the settings]."),
]


@browser_app.command("guide")
def browser_guide(
    url: ApiUrl = None,
    write: Annotated[
        Path | None, typer.Option(help="Also write the guide's HTML to this file (to host it elsewhere).")
    ] = None,
) -> None:
    """Print the commands that play the guide and load the style in Neo4j Browser."""
    base = url or api_base_url(get_settings())
    if write is not None:
        write.write_text(render_guide(style_url(base)), encoding="utf-8")
        typer.echo(f"guide written to {write}", err=True)
    typer.echo(f":play {guide_url(base)}")
    typer.echo(f":style {style_url(base)}")


@browser_app.command("style")
def browser_style() -> None:
    """Print the Browser style (GRASS), to paste after `:style` or save as a .grass file."""
    typer.echo(style_text(), nl=False)
