"""Benchmarks of Context Network; ``python -m bench`` (``make bench``) runs them all."""
