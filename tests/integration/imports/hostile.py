"""A received folder built to attack its importer (issue 45): git configuration that runs a
program, links out of the folder, a YAML alias bomb, a 50 MB file, a 200-level heading tree,
invalid UTF-8, a name with ``..`` and control characters, a named pipe; and good files."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

#: Text only the files outside the folder hold: it must never reach a note.
PRIVATE = "PRIVATE-rv4-credentials-outside-the-folder"
#: The day of the crafted, signed commit (1700000000 seconds).
COMMIT_DAY = "2023-11-14"
#: A decision record with no date of its own: the importer dates it from git.
UNDATED_ADR = """# 1. Use X

## Status

Accepted

## Context

We need a queue.

## Decision

We use X.

## Consequences

- One more service to run.
"""


def _git(folder: Path, *args: str, stdin: str | None = None) -> str:
    """Our own git, never reading the folder's hostile configuration's programs."""
    env = dict(os.environ) | {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    done = subprocess.run(
        ["git", "-C", str(folder), *args], input=stdin, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def signed_repository(folder: Path, marker: Path) -> None:
    """``folder`` as a git work tree holding an undated ADR, one commit with a ``gpgsig``
    header, and a config whose ``log.showSignature`` makes git run ``gpg.program``: a script
    that writes ``marker``."""
    (folder / "adr").mkdir(parents=True)
    (folder / "adr" / "0001-use-x.md").write_text(UNDATED_ADR)
    _git(folder, "init", "-q")
    _git(folder, "add", "adr")
    tree = _git(folder, "write-tree")
    signature = "\n".join(
        [
            "gpgsig -----BEGIN PGP SIGNATURE-----",
            " ",
            " iQEzBAABCAAdFiEEAAAAAAAAAAAAAAAAAAAAAAAAAAAFAmVTAAAACgkQAAAAAAAA",
            " -----END PGP SIGNATURE-----",
        ]
    )
    commit = (
        f"tree {tree}\nauthor A <a@example.com> 1700000000 +0000\n"
        f"committer A <a@example.com> 1700000000 +0000\n{signature}\n\nadr\n"
    )
    sha = _git(folder, "hash-object", "-w", "-t", "commit", "--stdin", stdin=commit)
    _git(folder, "update-ref", "HEAD", sha)
    script = folder.parent / "gpg-script.sh"
    script.write_text(f"#!/bin/sh\necho PWNED-by-gpg-program > '{marker}'\nexit 1\n")
    script.chmod(0o755)
    _git(folder, "config", "log.showSignature", "true")
    _git(folder, "config", "gpg.program", str(script))


def hostile_folder(base: Path, marker: Path) -> Path:
    """The whole hostile folder under ``base`` (its private file beside it, outside)."""
    folder = base / "received"
    folder.mkdir()
    (base / "private.md").write_text(f"# Private\n\n{PRIVATE}\n")
    signed_repository(folder, marker)
    (folder / "good.md").write_text("# Good\n\nThe queue holds orders for a minute.\n")
    (folder / "v1..2 notes.md").write_text("# Dots\n\nVersion one dot dot two.\n")
    (folder / "secret.md").symlink_to("../private.md")
    (folder / "creds.md").symlink_to(base / "private.md")
    (folder / "up").symlink_to("..")
    bomb = "\n".join(
        ["---", "a: &a [x, x, x, x, x, x, x, x, x]"]
        + [f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]" for i in range(6)]
        + ["tags: *g", "---", "", "Boom."]
    )
    (folder / "bomb.md").write_text(bomb + "\n")
    with (folder / "big.md").open("wb") as big:  # sparse: 50 MB in no time
        big.write(b"# Big\n\n")
        big.truncate(50 * 1024 * 1024)
    headings = [f"{'#' * n} Level {n}\n\nText of level {n}.\n" for n in range(1, 201)]
    (folder / "deep.md").write_text("\n".join(headings))
    (folder / "bad-utf8.md").write_bytes(b"# Bad\n\nfine\n\xff\xfe not text\n")
    (folder / "a..b\x01c\nd.md").write_text("# Control\n\nA name with control characters.\n")
    os.mkfifo(folder / "pipe.md")
    return folder
