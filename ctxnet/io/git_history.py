"""The one way an import touches git: the day git first saw each file, read from the
repository's objects by dulwich, a library that parses them and runs nothing.

A received folder's ``.git/config`` can name programs that git itself would run while
reading its history (``gpg.program`` with ``log.showSignature``, ``core.fsmonitor``,
``diff.external``, textconv drivers, a pager ...). Running ``git`` inside it would run them;
reading the objects does not: no configuration is acted on, no hook, filter or signature
program is called, and no process is started. The walk is bounded (:data:`MAX_COMMITS`),
and a history it cannot read leaves the records undated, said so in the report.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

from dulwich.diff_tree import (
    CHANGE_ADD,
    CHANGE_COPY,
    CHANGE_DELETE,
    CHANGE_RENAME,
    RenameDetector,
    tree_changes,
)
from dulwich.objects import Commit, ObjectID
from dulwich.repo import Repo

#: The most commits read, newest first; files still undated past them stay undated.
MAX_COMMITS = 100_000
#: The most added and deleted files of one commit compared by content to find a rename
#: (git's ``-M``, half the content alike); an exact rename (same content) is always found.
MAX_RENAME_FILES = 100
RENAME_SIMILARITY = 50


@dataclass
class GitDates:
    """The day (YYYY-MM-DD, the author's) git first saw each file, and why it could not tell."""

    days: dict[Path, str] = field(default_factory=dict)
    problem: str = ""


def first_seen(root: Path, files: list[Path]) -> GitDates:
    """The day the commit that added each file was authored (followed back through renames),
    when ``root`` is in a git work tree; else nothing. Never runs a program."""
    try:
        repo = Repo.discover(str(root))
    except Exception:  # no repository (or none dulwich can open): no git dates
        return GitDates()
    with repo:
        if repo.bare:
            return GitDates()
        try:
            return GitDates(_walk(repo, files))
        except Exception as exc:  # a broken or hostile history: undated, said so
            return GitDates(problem=f"its git history could not be read ({type(exc).__name__}): no git dates")


def _walk(repo: Repo, files: list[Path]) -> dict[Path, str]:
    top = Path(repo.path).resolve()
    tracked: dict[bytes, Path] = {}
    for file in files:
        resolved = file.resolve()
        if resolved.is_relative_to(top):
            tracked[os.fsencode(resolved.relative_to(top).as_posix())] = file
    store = repo.object_store
    detector = RenameDetector(
        store, rename_threshold=RENAME_SIMILARITY, max_files=MAX_RENAME_FILES, rewrite_threshold=None
    )
    days: dict[Path, str] = {}
    for n, entry in enumerate(repo.get_walker()):
        commit = entry.commit
        if not tracked or n >= MAX_COMMITS:
            break
        if len(commit.parents) > 1:  # as git log: a merge lists no changes of its own
            continue
        before = _tree_of(store[commit.parents[0]]) if commit.parents else None
        changes = list(tree_changes(store, before, commit.tree, paths=list(tracked)))  # ours alone first
        if not any(c.type == CHANGE_ADD and c.new is not None and c.new.path in tracked for c in changes):
            continue
        changes = list(tree_changes(store, before, commit.tree))
        if any(c.type == CHANGE_DELETE for c in changes):  # an add may be a rename
            changes = detector.changes_with_renames(before, commit.tree)
        day = _day(commit)
        for change in changes:
            new = change.new.path if change.new is not None else None
            if new not in tracked:
                continue
            if change.type in (CHANGE_RENAME, CHANGE_COPY) and change.old is not None and change.old.path:
                tracked[change.old.path] = tracked.pop(new)  # older commits know it by its old name
            elif change.type == CHANGE_ADD:
                days[tracked.pop(new)] = day
    return days


def _tree_of(parent: object) -> ObjectID | None:
    return parent.tree if isinstance(parent, Commit) else None


def _day(commit: Commit) -> str:
    """The commit's author date, in the author's own time zone (git's ``%as``)."""
    zone = timezone(timedelta(seconds=commit.author_timezone))
    return datetime.fromtimestamp(commit.author_time, zone).date().isoformat()
