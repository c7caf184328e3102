"""The embedder on real note lengths, beside the short synthetic notes the import's quoted
rate (110 notes/s, ``bench/imports.py``) was measured on.

A real vault's notes, as ``ctxnet import`` cuts them (parts of at most 300 words), are far
longer than the benchmark's 33-word notes, and the embedder's cost grows with the tokens it
reads (up to its 512-token window). This measures the local embedder alone, as the API calls
it (batches of 32, one thread), on the notes of a folder of Markdown and on as many short
synthetic notes, in one process, one after the other.

Run with ``python -m bench.real_notes FOLDER`` (e.g. a checkout of obsidianmd/obsidian-help's
``en/``; about a minute on 2 cores). The figures are printed and saved under bench/results/.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from bench.common import save
from bench.corpus import Corpus
from ctxnet.io.sources import read
from graph.core.embeddings import build_embedder
from graph.core.settings import Settings


def texts_of(folder: Path) -> list[str]:
    """The notes of a folder as the import sends them: title and content, as the API embeds."""
    return [
        f"{r.data['title']}\n{r.data['content']}"
        for r in read(folder, 300)
        if r.kind == "note" and r.problem is None
    ]


def short_texts(count: int) -> list[str]:
    """As many synthetic notes as ``bench/imports.py`` imports (a 3-word title, 30 words)."""
    corpus = Corpus(seed=11)
    vectors, topics = corpus.notes(count)
    return [f"{n['title']}\n{n['content']}" for n in corpus.items("n", vectors, topics, 0)]


def rate(texts: list[str]) -> float:
    """The local embedder on ``texts``, batches of 32, one thread: texts/s."""
    embedder = build_embedder(Settings(embedding_threads=1))
    asyncio.run(embedder.embed(texts[:4]))  # the model loaded before the clock starts
    started = time.perf_counter()
    for i in range(0, len(texts), 32):
        asyncio.run(embedder.embed(texts[i : i + 32]))
    return len(texts) / (time.perf_counter() - started)


def main(folder: Path) -> dict[str, Any]:
    """Both rates, and the lengths they were measured on."""
    real = texts_of(folder)
    short = short_texts(len(real))
    figures: dict[str, Any] = {
        "folder": str(folder),
        "notes": len(real),
        "medianWords": {
            "real": statistics.median(len(t.split()) for t in real),
            "short": statistics.median(len(t.split()) for t in short),
        },  # fmt: skip
        "textsPerSecond": {"real": round(rate(real), 1), "short": round(rate(short), 1)},
    }
    print(figures)
    save("real_notes", figures)
    return figures


if __name__ == "__main__":
    main(Path(sys.argv[1]))
