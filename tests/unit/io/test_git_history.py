"""Git dating of an import (ctxnet/io/git_history.py): read from the objects, never by running
a program, whatever the folder's configuration names; renames followed back; and the one
module of the importer that touches git, which starts no process at all."""

from __future__ import annotations

import ast
import os
import subprocess
from pathlib import Path

import pytest

import ctxnet.io
from ctxnet.io.git_history import first_seen
from ctxnet.io.sources import read
from tests.integration.imports.hostile import COMMIT_DAY, signed_repository

IO = Path(ctxnet.io.__file__).parent
#: Ways Python starts a program; none may appear in the importer.
STARTS = {"subprocess", "os.system", "os.popen", "os.spawn", "os.exec", "os.posix_spawn", "pty", "os.fork"}


def git(folder: Path, *args: str, day: str = "2020-01-01") -> None:
    """Our own git, with no configuration but what we give."""
    env = dict(os.environ) | {
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_AUTHOR_DATE": f"{day}T10:00:00+00:00",
        "GIT_COMMITTER_DATE": f"{day}T10:00:00+00:00",
    }
    identity = ["-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "-C", str(folder), *identity, *args], check=True, env=env, capture_output=True)


def no_process(*args: object, **kwargs: object) -> None:
    raise AssertionError(f"the import started a process: {args}")


def test_a_signed_commit_and_a_hostile_config_run_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "pwned.txt"
    folder = tmp_path / "received"
    signed_repository(folder, marker)
    for config in ("core.fsmonitor", "diff.external", "core.pager", "core.sshCommand"):
        git(folder, "config", config, f"sh -c 'echo {config} > {marker}'")
    for name in ("Popen", "run", "call", "check_output"):
        monkeypatch.setattr(subprocess, name, no_process)
    for name in ("system", "popen", "posix_spawn", "posix_spawnp", "fork", "execv", "execve"):
        monkeypatch.setattr(os, name, no_process)
    found = [r for r in read(folder, 300) if r.kind == "decision"]
    assert [(r.data["date"], r.extra["dated"]) for r in found] == [(COMMIT_DAY, "git")]
    assert not marker.exists()


def test_the_day_a_file_was_added_is_followed_back_through_renames(tmp_path: Path) -> None:
    folder = tmp_path / "repo"
    (folder / "adr").mkdir(parents=True)
    (folder / "adr" / "old-name.md").write_text("# Old\n\n" + "A record of some length.\n" * 20)
    git(folder, "init", "-q")
    git(folder, "add", ".")
    git(folder, "commit", "-qm", "add", day="2019-03-04")
    (folder / "adr" / "other.md").write_text("# Other\n")
    git(folder, "add", ".")
    git(folder, "commit", "-qm", "other", day="2020-05-06")
    git(folder, "mv", "adr/old-name.md", "adr/0001-new-name.md")
    text = (folder / "adr" / "0001-new-name.md").read_text()
    (folder / "adr" / "0001-new-name.md").write_text(text + "One more line.\n")  # renamed and edited
    git(folder, "add", ".")
    git(folder, "commit", "-qm", "rename", day="2021-07-08")
    (folder / "adr" / "untracked.md").write_text("# Not in git\n")
    files = [folder / "adr" / n for n in ("0001-new-name.md", "other.md", "untracked.md")]
    dated = first_seen(folder / "adr", files)  # the folder is inside the work tree, not its top
    assert dated.problem == ""
    assert {p.name: d for p, d in dated.days.items()} == {
        "0001-new-name.md": "2019-03-04",
        "other.md": "2020-05-06",
    }


def test_no_repository_or_a_broken_one_gives_no_dates_and_says_why(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.md").write_text("A.\n")
    assert first_seen(plain, [plain / "a.md"]).days == {}
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "a.md").write_text("A.\n")
    git(broken, "init", "-q")
    git(broken, "add", ".")
    git(broken, "commit", "-qm", "a")
    for loose in (broken / ".git" / "objects").glob("??/*"):
        loose.chmod(0o644)
        loose.write_bytes(b"not a zlib stream")
    dated = first_seen(broken, [broken / "a.md"])
    assert dated.days == {} and dated.problem.startswith("its git history could not be read")


def imports(module: Path) -> set[str]:
    """What a module imports or calls by dotted name (``subprocess``, ``os.system`` ...)."""
    tree = ast.parse(module.read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            found.add(f"{node.value.id}.{node.attr}")
    return found


def test_the_importer_starts_no_program_and_touches_git_in_one_module() -> None:
    by_module = {p.name: imports(p) for p in sorted(IO.glob("*.py"))}
    starting = {
        m: sorted(n for n in names if any(n.startswith(s) for s in STARTS)) for m, names in by_module.items()
    }
    assert {m: n for m, n in starting.items() if n} == {}
    assert [m for m, names in by_module.items() if any(n.startswith("dulwich") for n in names)] == [
        "git_history.py"
    ]
    allowed = {"dulwich.diff_tree", "dulwich.objects", "dulwich.repo"}  # reading, never porcelain or hooks
    used = {
        n.rsplit(".", 1)[0] if n.count(".") > 1 else n
        for n in by_module["git_history.py"]
        if n.startswith("dulwich")
    }
    assert used <= allowed, used
