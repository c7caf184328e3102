"""``python -m ctxnet`` is the ``ctxnet`` command."""

from ctxnet.launch import main

main()
