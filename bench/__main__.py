"""``python -m bench``: every benchmark, one after the other."""

from bench import platform

platform.main()
