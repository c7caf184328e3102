"""Token counting that works offline: OpenAI's ``o200k_base`` byte-pair encoding, whose
ranks ship inside the ``bpe-openai`` wheel (no download on first use, unlike tiktoken's).

The context bridge counts its block with it and names it in every response, so a caller
knows what its token budget was measured in. Load it once per process (about 0.15 s).
"""

from __future__ import annotations

import warnings
from importlib.metadata import version

with warnings.catch_warnings():
    # bpe-openai 0.1.4 reads its ranks with importlib.resources.open_binary (deprecated).
    warnings.simplefilter("ignore", DeprecationWarning)
    from bpe_openai import _bindings

ENCODING = "o200k_base"


class TokenCounter:
    """Counts the tokens of a text in one fixed encoding."""

    def __init__(self, encoding: str = ENCODING) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            # The Rust tokenizer behind bpe_openai.get_encoding(): its count() makes no list
            # of token ids (a third faster). Pinned to bpe-openai 0.1.4 (pyproject.toml).
            self._count = _bindings.tokenizer_for_encoding(encoding).count
        #: Named in responses, e.g. ``o200k_base (bpe-openai 0.1.4)``.
        self.name = f"{encoding} (bpe-openai {version('bpe-openai')})"

    def count(self, text: str) -> int:
        """How many tokens ``text`` is."""
        return int(self._count(text)) if text else 0
