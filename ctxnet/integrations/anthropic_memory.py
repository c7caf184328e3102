"""Claude's memory tool kept in Context Network: :class:`ContextNetworkMemoryTool`, a backend of
the Anthropic SDK's memory tool (``BetaAbstractMemoryTool``: view, create, str_replace, insert,
delete and rename under ``/memories``), with the answers and errors of the SDK's own
``BetaLocalFilesystemMemoryTool``.

Each memory file is a note of the key's user (``dedupe: false``: two alike files never fold into
one): title the path, ``data`` ``{"path", "text"}`` (the file as written, byte for byte, a
trailing newline included), ``content`` its first words within the service's word limit (what
is embedded and searched; ``(empty file)`` for an empty one), tags ``memories``, ``mf#<sha256 of
the path>`` and ``md#<sha256 of each directory above it>``, so a file or a directory is one tag
to list. A rename changes the note's path, title and tags and keeps the note (its history, and a
person's word on it). Every write carries the key's agent and ``session_id`` when given.

A person's correction of a file (their ``PATCH`` of its note: ``data``, or its ``content`` at
the desk, which the file then reads as) holds: the model's next change of it is not applied but
waits as a proposal, and the tool answers an error the model reads (``ToolError``, ``is_error``)
saying so, naming the proposal and telling it to view the file again. Directories exist while a
file is in them (an emptied directory is gone, where a disk keeps it); a file holds at most
64 KiB; symlinks do not exist here. Edits of one file through one tool are applied one after
another; across processes the last write of a file wins, as on a disk.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
import threading
import uuid
from typing import Any
from urllib.parse import quote

import httpx
from anthropic.lib.tools import BetaAbstractMemoryTool, ToolError
from anthropic.types.beta import (
    BetaMemoryTool20250818CreateCommand,
    BetaMemoryTool20250818DeleteCommand,
    BetaMemoryTool20250818InsertCommand,
    BetaMemoryTool20250818RenameCommand,
    BetaMemoryTool20250818StrReplaceCommand,
    BetaMemoryTool20250818ViewCommand,
)

from ctxnet.client import Call, Client, error_of
from ctxnet.wire.core import LimitsOut

ROOT = "/memories"
ROOT_TAG = "memories"
#: The most a file's note keeps as ``data`` (compact JSON with its path).
MAX_DATA_BYTES = 65_536
#: Directories a path may be under: the service keeps 32 tags a note.
MAX_DEPTH = 30
MAX_LINES = 999_999
WIDTH = len(str(MAX_LINES))
EMPTY = "(empty file)"


def file_tag(path: str) -> str:
    """The tag of the note that keeps the file at ``path``."""
    return "mf#" + _digest(path)


def dir_tag(path: str) -> str:
    """The tag every file under the directory ``path`` carries."""
    return ROOT_TAG if path == ROOT else "md#" + _digest(path)


def _digest(path: str) -> str:
    return hashlib.sha256(path.encode()).hexdigest()[:40]


def excerpt(text: str, limits: LimitsOut) -> str:
    """What a file's note says of it: its first words within the server's ``limits`` (words,
    then characters; ``(empty file)`` for none)."""
    words = text.split()
    clipped = " ".join(words[: limits.max_note_words]) if len(words) > limits.max_note_words else text.strip()
    return clipped[: limits.max_content_chars].strip() or EMPTY


def size(n: int) -> str:
    """A size as the SDK's filesystem tool shows it (``0B``, ``12B``, ``1.5K``)."""
    if n == 0:
        return "0B"
    i = min((n.bit_length() - 1) // 10, 3)
    value = n / 1024**i
    return f"{int(value)}{'BKMG'[i]}" if value == int(value) else f"{value:.1f}{'BKMG'[i]}"


class ContextNetworkMemoryTool(BetaAbstractMemoryTool):
    """The memory tool's ``/memories`` kept as notes of this service (the module says how)."""

    def __init__(
        self,
        *,
        url: str | None = None,
        api_key: str | None = None,
        session_id: str | None = None,
        timeout: float = 60.0,
    ) -> None:
        super().__init__()
        self.client = Client(url, api_key, session_id=session_id, timeout=timeout)
        self._limits: LimitsOut | None = None
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    @property
    def limits(self) -> LimitsOut:
        """The server's limits (``GET /v1/limits``), read once, when a file's excerpt is first needed."""
        if self._limits is None:
            with self._guard:
                if self._limits is None:
                    self._limits = self.client.limits()
        return self._limits

    def close(self) -> None:
        """Close the client's connections."""
        self.client.close()

    # --- commands -----------------------------------------------------------------------------
    def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        """A file with line numbers (``view_range`` too), or a directory two levels deep."""
        path = _valid(command.path)
        note = self._file(path)
        if note is None:
            return self._view_directory(command.path, path)
        lines = _text(note, self.limits).split("\n")
        if len(lines) > MAX_LINES:
            raise ToolError(f"File {command.path} exceeds maximum line limit of 999,999 lines.")
        start = 1
        if command.view_range and len(command.view_range) == 2:
            first = max(1, command.view_range[0]) - 1
            last = len(lines) if command.view_range[1] == -1 else command.view_range[1]
            lines, start = lines[first:last], first + 1
        numbered = [f"{str(i + start).rjust(WIDTH)}\t{line}" for i, line in enumerate(lines)]
        return f"Here's the content of {command.path} with line numbers:\n" + "\n".join(numbered)

    def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        """A new file; an existing one is an error."""
        path = _valid(command.path)
        if self._file(path) is not None:
            raise ToolError(f"File {command.path} already exists")
        fields = self._fields(path, command.file_text)
        directories = _directories(path)
        tags = [file_tag(path), *(dir_tag(d) for d in directories)]
        note = {"title": path[:300], "type": "fact", "tags": tags, "dedupe": False} | fields
        for note_id in ("mem." + _digest(path), f"mem.{uuid.uuid4().hex}"):
            answer = self._send(Call("POST", "/v1/knowledge", note | {"id": note_id}), command.path)
            if answer.status_code == 201:
                return f"File created successfully at: {command.path}"
            if self._file(path) is not None:  # another caller made it first
                raise ToolError(f"File {command.path} already exists")
            # else the id is a renamed file's: the file is made under a fresh one
        raise error_of(answer)

    def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        """Replace the one occurrence of ``old_str``; none or several is an error."""
        path = _valid(command.path)
        with self._lock(path):
            note, content = self._existing(command.path, path)
            count = content.count(command.old_str)
            if count == 0:
                raise ToolError(
                    f"No replacement was performed, old_str `{command.old_str}` did not appear verbatim in "
                    f"{command.path}."
                )
            if count > 1:
                starts = [m.start() for m in re.finditer(f"(?={re.escape(command.old_str)})", content)]
                where = ", ".join(str(content[:pos].count("\n") + 1) for pos in starts)
                raise ToolError(
                    f"No replacement was performed. Multiple occurrences of old_str `{command.old_str}` in "
                    f"lines: {where}. Please ensure it is unique"
                )
            changed = content[: content.find(command.old_str)].count("\n")
            new = content.replace(command.old_str, command.new_str)
            self._write(note, path, new, command.path)
        lines = new.split("\n")
        shown = range(max(0, changed - 2) + 1, min(len(lines), changed + 3) + 1)
        snippet = "\n".join(f"{str(n).rjust(WIDTH)}\t{lines[n - 1]}" for n in shown)
        return (
            "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n"
            + snippet
        )

    def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        """Insert ``insert_text`` after line ``insert_line`` (0: at the top)."""
        path = _valid(command.path)
        with self._lock(path):
            note, content = self._existing(command.path, path)
            lines = content.split("\n")
            if lines[-1] == "":
                lines.pop()
            if command.insert_line < 0 or command.insert_line > len(lines):
                raise ToolError(
                    f"Invalid `insert_line` parameter: {command.insert_line}. "
                    f"It should be within the range [0, {len(lines)}]."
                )
            lines.insert(command.insert_line, command.insert_text.rstrip("\n"))
            new = "\n".join(lines)
            self._write(note, path, new if new.endswith("\n") else new + "\n", command.path)
        return f"The file {command.path} has been edited."

    def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        """Delete a file, or a directory with every file in it."""
        path = _valid(command.path)
        if path == ROOT:
            raise ToolError("Cannot delete the /memories directory itself")
        note = self._file(path)
        notes = [note] if note is not None else self._under(path)
        if not notes:
            raise ToolError(f"The path {command.path} does not exist")
        for each in notes:
            self._send(Call("DELETE", f"/v1/knowledge/{quote(each['id'], safe='')}"), command.path)
        return f"Successfully deleted {command.path}"

    def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        """Move a file or a directory; the destination must not exist."""
        old, new = _valid(command.old_path), _valid(command.new_path)
        if old == ROOT:
            raise ToolError("Cannot rename the /memories directory itself")
        if new == ROOT or self._file(new) is not None or self._under(new):
            raise ToolError(f"The destination {command.new_path} already exists")
        note = self._file(old)
        moves = (
            [(note, new)]
            if note is not None
            else [(n, new + n["data"]["path"][len(old) :]) for n in self._under(old)]
        )
        if not moves:
            raise ToolError(f"The path {command.old_path} does not exist")
        for each, path in moves:
            _valid(path)
            text = each["data"]["text"]
            tags = [file_tag(path), *(dir_tag(d) for d in _directories(path))]
            fields = {"title": path[:300], "tags": tags} | self._fields(path, text)
            self._send(Call("PATCH", f"/v1/knowledge/{quote(each['id'], safe='')}", fields), command.old_path)
        return f"Successfully renamed {command.old_path} to {command.new_path}"

    # --- notes --------------------------------------------------------------------------------
    def _fields(self, path: str, text: str) -> dict[str, Any]:
        data = {"path": path, "text": text}
        if len(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()) > MAX_DATA_BYTES:
            raise ToolError(f"File {path} is too large: a memory file here holds at most 64 KiB.")
        return {"content": excerpt(text, self.limits), "data": data}

    def _file(self, path: str) -> dict[str, Any] | None:
        """The note of the file at ``path``, if there is one."""
        page = self.client.request_json("GET", "/v1/knowledge", params={"tag": file_tag(path), "limit": 5})
        found = [note for note in page.get("items", []) if _path(note) == path]
        return found[0] if found else None

    def _under(self, directory: str) -> list[dict[str, Any]]:
        """The notes of every file under ``directory``."""
        prefix = directory.rstrip("/") + "/"
        return [
            note
            for note in self.client.iter_json("/v1/knowledge", tag=dir_tag(directory), limit=500)
            if (_path(note) or "").startswith(prefix)
        ]

    def _existing(self, shown: str, path: str) -> tuple[dict[str, Any], str]:
        note = self._file(path)
        if note is None:
            if self._under(path):
                raise ToolError(f"The path {shown} is not a file.")
            raise ToolError(f"The path {shown} does not exist. Please provide a valid path.")
        return note, _text(note, self.limits)

    def _write(self, note: dict[str, Any], path: str, text: str, shown: str) -> None:
        self._send(
            Call("PATCH", f"/v1/knowledge/{quote(note['id'], safe='')}", self._fields(path, text)), shown
        )

    def _send(self, call: Call, shown: str) -> httpx.Response:
        """Send a write; a proposal (202) or a refusal is an error the model reads."""
        answer = self.client.send(call)
        if answer.status_code == 202:
            proposal = answer.json().get("proposal") or {}
            raise ToolError(
                f"The change to {shown} was not applied: a person corrected this memory, so your change "
                f"waits as proposal {proposal.get('id')} for them to approve or reject. View the file "
                "again to read what it says now."
            )
        if answer.status_code < 300 or answer.status_code in (404, 409) and call.method == "POST":
            return answer
        if answer.status_code == 404:
            raise ToolError(f"The path {shown} does not exist")
        raise ToolError(f"The memory service refused the change to {shown}: {error_of(answer).message}")

    def _view_directory(self, shown: str, path: str) -> str:
        notes = self._under(path)
        if not notes and path != ROOT:
            raise ToolError(f"The path {shown} does not exist. Please provide a valid path.")
        files = {
            n["data"]["path"][len(path.rstrip("/")) + 1 :]: len(n["data"]["text"].encode()) for n in notes
        }
        entries: list[str] = []

        def walk(prefix: str, depth: int) -> None:
            children: dict[str, int | None] = {}
            for relative, nbytes in files.items():
                if relative.startswith(prefix):
                    head, _, rest = relative[len(prefix) :].partition("/")
                    children[head] = None if rest else nbytes
            for name in sorted(children):
                if name.startswith("."):
                    continue
                found = children[name]
                if found is None:  # a directory, sized as a disk shows one
                    entries.append(f"4.0K\t{shown}/{prefix}{name}/")
                    if depth < 2:
                        walk(f"{prefix}{name}/", depth + 1)
                else:
                    entries.append(f"{size(found)}\t{shown}/{prefix}{name}")

        walk("", 1)
        header = f"Here're the files and directories up to 2 levels deep in {shown}, excluding hidden items:"
        return "\n".join([header, f"4.0K\t{shown}", *entries])

    def _lock(self, path: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(path, threading.Lock())


def _valid(path: str) -> str:
    """``path`` as the file it names under ``/memories``; outside it, an error."""
    if not path.startswith(ROOT):
        raise ToolError(f"Path must start with /memories, got: {path}")
    relative = path[len(ROOT) :].lstrip("/")
    full = posixpath.normpath(f"{ROOT}/{relative}") if relative else ROOT
    if full != ROOT and not full.startswith(ROOT + "/"):
        raise ToolError(f"Path {path} would escape /memories directory")
    if len(_directories(full)) > MAX_DEPTH:
        raise ToolError(f"Path {path} is more than {MAX_DEPTH} directories deep")
    return full


def _directories(path: str) -> list[str]:
    """The directories above ``path``, ``/memories`` first."""
    parts = path.split("/")[1:-1]
    return ["/" + "/".join(parts[: i + 1]) for i in range(len(parts))]


def _path(note: dict[str, Any]) -> str | None:
    """The path of a memory file's note (``None`` for another note)."""
    data = note.get("data")
    ok = isinstance(data, dict) and isinstance(data.get("text"), str) and isinstance(data.get("path"), str)
    return str(data["path"]) if ok else None  # type: ignore[index]


def _text(note: dict[str, Any], limits: LimitsOut) -> str:
    """A file's text: as written, unless a person rewrote its note's content (then theirs)."""
    text = str(note["data"]["text"])
    return text if excerpt(text, limits) == note.get("content") else str(note.get("content", ""))
