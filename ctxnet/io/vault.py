"""A folder of Markdown notes read as the tool that keeps it reads it: an Obsidian or a
Dendron vault, or plain Markdown (decision records among them: :mod:`ctxnet.io.adr`).

* **Which tool**: Dendron when a ``dendron.yml`` is in the folder or above it, Obsidian when
  a ``.obsidian`` folder is; plain Markdown otherwise (read like Obsidian).
* **Ids** are unique per path: the front matter's ``id``; else the file's name when no other
  file of the vault has it; else its path (``Folder.Sub.Note``).
* **Title**: the front matter's ``title``; else, in plain Markdown, a level-1 heading that
  opens the note; else the note's own file name (the name Obsidian shows). ``aliases`` are
  kept as ``alias:<name>`` tags.
* **Links** resolve as Obsidian does: ``[[Note]]`` by name, case-insensitive, the note in
  the linking note's folder first, else the one with the shortest path; ``[[Folder/Note]]``
  by the end of the path; ``[[Note|shown]]``, ``[[Note#Heading]]``, ``[[Note^block]]``;
  Markdown links ``[x](Other%20note.md)`` relative to the note. Dendron's ``[[shown|target]]``
  names the target last, and ``dendron://vault/`` prefixes are dropped; each Dendron note is
  ``relatedTo`` its nearest parent in the dot hierarchy (edge note ``hierarchy``). An embed
  of a note (``![[Note]]``) links it; an embed of a file (``![[diagram.png]]``) and anything
  inside code is not a link. Links in front-matter properties are links (``relatedTo``, or
  the typed edge of ``dependsOn``, ``supersedes``, ``conflictsWith``, ``relatedTo``).
* **Properties**: ``type``, ``source``, ``confidence`` when they hold the API's values; any
  other property (a vault's own ``type: book``, ``source: kindle``, ``publish: true``) is kept
  as a ``name:value`` tag when it fits (64 characters, 32 tags); one that does not (a long
  ``description``, a nested value) is kept as a ``name: value`` line after the note's text,
  counted by name in the report. A note with only front matter is a note (its content is the front matter).
"""

from __future__ import annotations

import json
import posixpath
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from ctxnet.io import folder as bounds
from ctxnet.io.adr import decision_record, is_decision, is_template, record_date, sections
from ctxnet.io.folder import Refused, bounded, front_matter, read_text, where
from ctxnet.io.git_history import first_seen
from ctxnet.io.records import Record, slug, split, without_code

EDGE_TYPES = ("relatedTo", "dependsOn", "supersedes", "conflictsWith")
_TYPES = ("fact", "concept", "procedure", "decision")
_SOURCES = ("docs", "conversation", "decision", "inferred")
_OWN = {"id", "title", "type", "source", "confidence", "tags", "tag", "aliases", "alias", *EDGE_TYPES}
_WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
# Linear in the text: no run can trade characters with the next (a line of 2 MiB of "["
# took hours when the link's text could hold "[").
_MDLINK = re.compile(r"(!?)\[[^\[\]\n]*+\]\([ \t]*<?([^()\s>]++)>?(?:[ \t]+\"[^\"\n]*+\")?[ \t]*\)")
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$")
_INDEX = {"index", "readme", "_index", "toc", "summary", "_sidebar"}
#: Files an embed or link names that are not notes.
_FILES = "png jpg jpeg gif svg webp bmp avif ico tif tiff pdf mp4 webm mov mkv ogv mp3 wav ogg m4a flac"
_MORE = "3gp canvas base excalidraw csv json zip txt html htm epub docx xlsx pptx"
ATTACHMENTS = frozenset([*_FILES.split(" "), *_MORE.split(" ")])


@dataclass
class Note:
    """One Markdown file of the vault, read."""

    file: Path
    name: str  # its path in the vault, for file:line
    meta: dict[str, Any]
    front: str  # the front matter's text
    body: str
    first_line: int
    id: str = ""
    problem: str | None = None
    size: int = 0  # the bytes read


@dataclass
class Vault:
    """The vault's notes, by path and by name, and how it links."""

    root: Path
    notes: list[Note]
    flavour: str = "markdown"
    by_path: dict[str, Note] = field(default_factory=dict)  # lower-case path without .md
    by_name: dict[str, list[Note]] = field(default_factory=dict)  # lower-case file name
    #: Properties kept in the note's text (too long for a tag, past 32 tags, or nested), by name.
    in_text: Counter[str] = field(default_factory=Counter)

    def resolve(self, target: str, source: Note, *, relative: bool = False) -> Note | None:
        """The note a link names (module docstring), or None."""
        text = target.strip().replace("\\", "")
        if text.startswith("dendron://"):
            text = text[len("dendron://") :].partition("/")[2]
        text = unquote(re.split(r"[#^]", text, maxsplit=1)[0]).strip().strip("/")
        if text.lower().endswith(".md"):
            text = text[:-3]
        key = text.lower()
        if not key:
            return None
        if relative or "/" in key:
            folder = posixpath.dirname(source.name.lower())
            near = self.by_path.get(posixpath.normpath(posixpath.join(folder, key)))
            if near is not None:
                return near
        if "/" in key:
            found = [n for p, n in self.by_path.items() if p == key or p.endswith("/" + key)]
        else:
            found = self.by_name.get(key, [])
        if len(found) > 1:
            folder = posixpath.dirname(source.name)
            same = [n for n in found if posixpath.dirname(n.name) == folder]
            found = same or sorted(found, key=lambda n: (n.name.count("/"), n.name))
        return found[0] if found else None

    def is_attachment(self, target: str) -> bool:
        """Whether a link names a file that is not a note (an image, a PDF, ...)."""
        text = unquote(re.split(r"[#^|]", target, maxsplit=1)[0]).strip()
        suffix = posixpath.splitext(text)[1].lower().lstrip(".")
        return suffix in ATTACHMENTS or (bool(suffix) and suffix != "md" and (self.root / text).is_file())


def read_vault(root: Path, files: list[Path], max_words: int) -> Iterator[Record]:
    """Every record of a folder (or one file) of Markdown, in file order."""
    vault = Vault(root, [], _flavour(root))
    total = 0
    for index, file in enumerate(files):
        note = _read(file, root)
        total += note.size
        if total > bounds.MAX_FOLDER_BYTES:  # what was read before it still imports
            yield bounds.over_folder(note.name, len(files) - index - 1)
            break
        vault.notes.append(note)
    _assign_ids(vault)
    decision_folders = {
        n.file.parent for n in vault.notes if n.problem is None and is_decision(sections(n.body))
    }
    undated = [
        n.file
        for n in vault.notes
        if n.problem is None and is_decision(sections(n.body)) and not record_date(n.meta, n.body)
    ]
    dated = first_seen(root, undated) if undated else None
    git_dates = dated.days if dated else {}
    if dated and dated.problem:
        yield Record("skip", {}, root.name, extra={"reason": dated.problem})
    by_file = {n.file: n for n in vault.notes}

    def resolve_record(target: str, file: Path) -> str | None:
        source = by_file[file]
        if target.startswith("#"):  # "ADR-12": the record numbered 12 in the folder
            return _numbered(vault, file.parent, int(target[1:]))
        found = vault.resolve(target, source, relative=True)
        if found is None:  # a link to a file renamed since: the record of the same number
            number = re.match(r"\D*(\d+)", posixpath.basename(target))
            return _numbered(vault, file.parent, int(number.group(1))) if number else None
        return found.id

    for note in vault.notes:
        at = f"{note.name}:{note.first_line}"
        if note.problem is not None:
            yield Record("note", {}, where(note.name, note.first_line), note.problem)
            continue
        found = sections(note.body)
        if is_decision(found):
            if is_template(note.file, note.meta, note.body, found):
                yield Record("skip", {}, at, extra={"reason": "a decision record template"})
                continue
            made = decision_record(
                note.file, at, note.meta, note.body, note.id, resolve=resolve_record,
                max_words=max_words, git_date=git_dates.get(note.file),
            )  # fmt: skip
            yield from bounded(made, note.name, note.first_line)
            continue
        if note.file.parent in decision_folders and note.file.stem.lower() in _INDEX:
            yield Record("skip", {}, at, extra={"reason": "the index page of decision records"})
            continue
        if note.file.parent in decision_folders and is_template(note.file, note.meta, note.body, found):
            yield Record("skip", {}, at, extra={"reason": "a decision record template"})
            continue
        yield from bounded(_note_records(vault, note, max_words), note.name, note.first_line)
    if vault.in_text:
        yield Record("inText", dict(vault.in_text), f"{root.name}:1")


def _note_records(vault: Vault, note: Note, max_words: int) -> Iterator[Record]:
    meta, where = note.meta, f"{note.name}:{note.first_line}"
    data: dict[str, Any] = {
        "id": note.id,
        "title": _title(vault, note),
        "content": note.body.strip() or note.front.strip() or _title(vault, note),
        "type": "concept",
        "sourceRef": where,
    }
    tags: list[str] = []
    overflow: list[str] = []
    for given in _listed(meta.get("tags", meta.get("tag"))):
        tags += [t.strip().lstrip("#") for t in str(given).split(",") if t.strip().lstrip("#")]
    tags += [f"alias:{a}" for a in _listed(meta.get("aliases", meta.get("alias")))]
    for key, allowed in (("type", _TYPES), ("source", _SOURCES)):
        if key in meta and str(meta[key]).lower() in allowed:
            data[key] = str(meta[key]).lower()
        elif meta.get(key) is not None:
            tags.append(f"{key}:{meta[key]}")
    confidence = meta.get("confidence")
    if isinstance(confidence, int | float) and not isinstance(confidence, bool) and 0 <= confidence <= 1:
        data["confidence"] = confidence
    elif confidence is not None:
        tags.append(f"confidence:{confidence}")
    for key, value in meta.items():
        if key in _OWN or value is None or (isinstance(value, str) and _WIKILINK.search(value)):
            continue
        values = value if isinstance(value, list) else [value]
        tags += [
            f"{key}:{v}"
            for v in values
            if not isinstance(v, dict | list) and str(v).strip() and not _WIKILINK.search(str(v))
        ]
        overflow += [f"{key}: {json.dumps(v, default=str)}" for v in values if isinstance(v, dict | list)]
    kept: list[str] = []
    for tag in tags:
        if tag.strip() and tag not in kept and len(tag) <= 64 and len(kept) < 32:
            kept.append(tag)
        elif tag.strip() and tag not in kept:
            name, _, value = tag.partition(":") if ":" in tag else ("tags", "", tag)
            overflow.append(f"{name}: {value}")
    if kept:
        data["tags"] = kept
    if overflow:  # what does not fit a tag is kept in the note's text, after it
        data["content"] += "\n\n" + "\n".join(overflow)
        vault.in_text.update(line.partition(":")[0] for line in overflow)
    yield from split(Record("note", data, where), max_words)
    seen: set[tuple[str, str]] = set()

    def edge(edge_type: str, target: str, at: str, note_text: str | None = None) -> Iterator[Record]:
        if (edge_type, target) not in seen and target != note.id:
            seen.add((edge_type, target))
            body = {"sourceId": note.id, "type": edge_type, "targetId": target}
            yield Record("edge", body | ({"note": note_text} if note_text else {}), at)

    for key, value in meta.items():  # typed lists (ids or names), and links in any property
        for item in _listed(value):
            links = _WIKILINK.findall(str(item))
            if key in EDGE_TYPES and not links:
                found = vault.resolve(str(item), note)
                yield from edge(key, found.id if found else slug(str(item)), where)
            for _, inner in links:
                yield from _link(vault, note, inner, key if key in EDGE_TYPES else "relatedTo", where, edge)
    yield from _body_links(vault, note, edge)
    if vault.flavour == "dendron":
        parts = note.file.stem.split(".")
        for n in range(len(parts) - 1, 0, -1):
            parent = vault.by_name.get(".".join(parts[:n]).lower())
            if parent:
                yield from edge("relatedTo", parent[0].id, where, "hierarchy")
                break


def _body_links(vault: Vault, note: Note, edge: Any) -> Iterator[Record]:
    """The edges of the links in a note's text (code left out), each link read once."""
    body = without_code(note.body)
    line, counted, read = note.first_line, 0, set()
    for match in sorted([*_WIKILINK.finditer(body), *_MDLINK.finditer(body)], key=lambda m: m.start()):
        if (match.re, match.groups()) in read:  # the same link again: the same edge
            continue
        read.add((match.re, match.groups()))
        embed, target = match.groups()
        line, counted = line + body.count("\n", counted, match.start()), match.start()
        at = f"{note.name}:{line}"
        if match.re is _MDLINK:
            path = target.split("#")[0]
            if not path.lower().endswith(".md") or re.match(r"^[a-z][a-z0-9+.-]*:", path, re.IGNORECASE):
                continue
            found = vault.resolve(path, note, relative=True)
            if found is not None:
                yield from edge("relatedTo", found.id, at)
            continue
        yield from _link(vault, note, target, "relatedTo", at, edge, embed=bool(embed))


def _link(
    vault: Vault, note: Note, inner: str, edge_type: str, at: str, edge: Any, *, embed: bool = False
) -> Iterator[Record]:
    """The edge of one ``[[...]]`` (none for an attachment; to its name when unresolved)."""
    pieces = [p for p in inner.replace("\\|", "|").split("|")]
    order = pieces[::-1] if vault.flavour == "dendron" else pieces
    if vault.flavour == "markdown":
        order = pieces + pieces[::-1]
    for candidate in order:
        found = vault.resolve(candidate, note)
        if found is not None:
            yield from edge(edge_type, found.id, at)
            return
    target = order[0]
    if embed or vault.is_attachment(target):
        return  # an embedded file, or one that is not a note: not a link between notes
    name = re.split(r"[#^]", target.replace("dendron://", ""), maxsplit=1)[0].strip()
    if name:
        yield from edge(edge_type, slug(posixpath.basename(name)), at)


def _read(file: Path, root: Path) -> Note:
    name = file.relative_to(root).as_posix() if file.is_relative_to(root) else file.name
    try:  # one bad file is one rejected record, not a failed import (ctxnet.io.folder)
        read = read_text(file, root)
        text = read.lstrip("\ufeff").replace("\r\n", "\n")
        meta, front, body, first_line = front_matter(text)
    except Refused as refused:
        return Note(file, name, {}, "", "", refused.line, problem=refused.reason)
    return Note(file, name, meta, front, body, first_line, size=len(read.encode()))


def _assign_ids(vault: Vault) -> None:
    for note in vault.notes:
        path = posixpath.splitext(note.name)[0]
        vault.by_path[path.lower()] = note
        vault.by_name.setdefault(posixpath.basename(path).lower(), []).append(note)
    for note in vault.notes:
        given = note.meta.get("id")
        stem = posixpath.basename(posixpath.splitext(note.name)[0])
        if isinstance(given, str | int) and _ID.match(str(given)):
            note.id = str(given)
        elif len(vault.by_name[stem.lower()]) == 1:
            note.id = slug(stem)
        else:
            note.id = slug(posixpath.splitext(note.name)[0].replace("/", "."))
    taken = Counter(n.id for n in vault.notes)
    for note in vault.notes:  # two names that slug alike: each its path
        if taken[note.id] > 1 and not note.meta.get("id"):
            note.id = slug(posixpath.splitext(note.name)[0].replace("/", "."))


def _title(vault: Vault, note: Note) -> str:
    if note.meta.get("title"):
        return str(note.meta["title"])[:300]
    opening = note.body.lstrip().partition("\n")[0]
    if vault.flavour == "markdown" and re.match(r"^#\s+\S", opening):
        return opening.lstrip("#").strip()[:300]
    return note.file.stem[:300]


def _flavour(root: Path) -> str:
    for folder in [root, *list(root.resolve().parents)[:3]]:
        if (folder / "dendron.yml").is_file():
            return "dendron"
        if (folder / ".obsidian").is_dir():
            return "obsidian"
    return "markdown"


def _listed(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _numbered(vault: Vault, folder: Path, number: int) -> str | None:
    """The id of the one record in ``folder`` whose name starts with ``number`` (ADR012, 0012-...)."""
    found = [
        n.id
        for n in vault.notes
        if n.file.parent == folder
        and (m := re.match(r"\D{0,4}?(\d+)", n.file.stem))
        and int(m.group(1)) == number
    ]
    return found[0] if len(found) == 1 else None
