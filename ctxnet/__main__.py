"""``python -m ctxnet`` is the ``ctxnet`` command."""

from ctxnet.cli import app

app()
