"""Architecture decision records as people keep them (Nygard's and MADR's Markdown), read
into the API's decision fields and the relations between records.

* **Fields.** ``context`` is the record's context with every other section it has (decision
  drivers, considered options, pros and cons, notes ...) under its own heading; ``decision``
  the decision (outcome); ``consequences`` its list items. Nothing is cut: what does not fit
  a field (a decision past the atomic limit, a context past 5,000 characters, a consequence
  past 1,000, more than 20 of them) continues in notes ``<id>-more``, ``<id>-more-2``, ...,
  the first ``relatedTo`` the decision.
* **Status** as the record states it (front matter, a ``## Status`` section, a ``Status:``
  line or bullet): accepted records are active; proposed, pending, draft, on hold ... and
  rejected, deprecated ... are kept archived (never shaping an agent's instructions) with a
  ``status:<word>`` tag; a bare "Superseded" (no link to what supersedes it) is archived,
  since the API makes a decision superseded only through a ``supersedes`` edge.
* **Relations**: "Supersedes [X](x.md)" and, on the older record, "Superseded by [X](x.md)"
  are one ``supersedes`` edge (newer to older, which marks the older superseded). "In part
  supersedes" / "Partly superseded by", "Amends" / "Amended by" and "Supplements" /
  "Supplemented by" keep both records active, linked ``relatedTo`` with the relation as the
  edge's note. A record that is not in force supersedes nothing (linked, said so).
* **Templates** (a name with "template", placeholders, a status listing the choices) are
  recognised and skipped; so are index pages (:mod:`ctxnet.io.vault`).
* **Date** as the record says; else the day git first saw the file, when the folder is in
  a git work tree, read from git's objects without running anything the folder configures
  (:mod:`ctxnet.io.git_history`; the report counts each source).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ctxnet.io.records import Record, parts, split, without_code

_LINES = re.MULTILINE | re.IGNORECASE
# "Date: 2026-01-10", "**Date**: ...", "**Date:** ...", MADR 2's "* Date: ..." (also Status).
# Each pattern stays within a line ([ \t] where \s would cross lines) and has no two runs that
# can trade characters, so it reads a file in linear time (20,000 spaces after a heading took
# over 20 s; a 2 MiB file would have taken days).
_DATE = re.compile(
    r"^[ \t]*(?:[-*][ \t]+)?(?:\*\*)?Date(?:\*\*)?[ \t]*:(?:[ \t]|\*\*)*(\d{4}-\d{2}-\d{2})", _LINES
)
_STATUS = re.compile(r"^[ \t]*(?:[-*][ \t]+)?(?:\*\*)?Status(?:\*\*)?[ \t]*:(?:[ \t]|\*\*)*(\S.*)$", _LINES)
_CONSEQUENCES = re.compile(r"^###[ \t]+(?:(positive|negative)[ \t]+)?consequences[ \t]*$", _LINES)
_CHOSEN = re.compile(r'chosen option:[ \t]*"?([^",\n]+)', _LINES)
_TITLE = re.compile(r"^#[ \t]++(?:(?:ADR|RFC)?[-# \t]*\d+[ \t]*[.:)\-—–]+[ \t]*)?(\S.*)$", re.MULTILINE)
_HEADING = re.compile(r"^##[ \t]+(\S.*)$", re.MULTILINE)
_PART = re.compile(r"\bpart(?:ly|ial|ially)?\b|portions?", re.IGNORECASE)
_CUT = re.compile(r"(?<!\d)\.(?:\s|$)|;")
_OPENS = re.compile(r"\W*superseded", re.IGNORECASE)
_PLACEHOLDER = re.compile(
    r"\{short title|\[short title|ADR-?X{3}|\{problem statement|\{describe the context", re.I
)
#: How records state their status, by the status's first words.
IN_FORCE = ("accepted", "approved", "adopted", "agreed", "decided", "done", "implemented", "active")
NOT_YET = ("proposed", "pending", "draft", "open", "in progress", "under review", "on hold", "wip",
           "discussing", "in discussion", "review", "suggested", "planned")  # fmt: skip
NOT_IN_FORCE = ("rejected", "deprecated", "withdrawn", "abandoned", "obsolete", "retired", "declined")
#: Relations a record states, the edge each makes, and which end is the newer record.
_RELATIONS = [  # (phrase, edge type, note, this record is the newer one)
    (r"(?:in part|partly|partially)\s+supersedes?", "relatedTo", "partly supersedes", True),
    (r"(?:partly|partially|in part)\s+superseded\s+by|superseded\s+in\s+part\s+by", "relatedTo",
     "partly supersedes", False),
    (r"supersedes", "supersedes", None, True),
    (r"superseded\s+by", "supersedes", None, False),
    (r"amends", "relatedTo", "amends", True),
    (r"amended\s+by", "relatedTo", "amends", False),
    (r"supplements", "relatedTo", "supplements", True),
    (r"supplemented\s+by", "relatedTo", "supplements", False),
]  # fmt: skip
_RELATION = re.compile(
    r"(?<![A-Za-z])(" + "|".join(f"(?:{p})" for p, *_ in _RELATIONS) + r")(?![A-Za-z])", re.IGNORECASE
)
_LINK = re.compile(
    r"\]\([ \t]*<?([^()>\s]++)>?[^()\n]*\)|\[\[([^\[\]|#\n]++)[^\[\]\n]*\]\]|\bADR[-_ #]?(\d+)\b", re.I
)
#: Most characters of a decision's context, and of one consequence (the API's limits).
CONTEXT_CHARS, CONSEQUENCE_CHARS, MAX_CONSEQUENCES = 5_000, 1_000, 20

#: ``resolve(target, from_file)``: the id of the record a link (a path, or a record number
#: such as ``"12"``) names, or None.
Resolve = Callable[[str, Path], str | None]


def sections(body: str) -> dict[str, str]:
    """The text under each ``##`` heading, by its lower-case title."""
    found: dict[str, str] = {}
    for title, text in _titled(body):
        found.setdefault(title.lower(), text)
    return found


def is_decision(found: dict[str, str]) -> bool:
    """Whether a note's sections are a decision record's."""
    return bool({"decision", "decision outcome"} & found.keys()) and bool(
        {"context", "context and problem statement"} & found.keys()
    )


def stated_status(meta: dict[str, Any], found: dict[str, str], body: str) -> str:
    """The status text the record states (front matter, section, or line), or ''."""
    if meta.get("status"):
        return str(meta["status"]).strip()
    if found.get("status"):
        return found["status"].strip()
    line = _STATUS.search(body)
    return line.group(1).strip() if line else ""


def is_template(file: Path, meta: dict[str, Any], body: str, found: dict[str, str]) -> bool:
    """A record template, not a record: its name, its placeholders, or a status listing the choices."""
    status = stated_status(meta, found, body)
    choices = status.count("|") >= 1 and not re.search(r"\]\(", status.split("|")[0])
    return "template" in file.stem.lower() or bool(_PLACEHOLDER.search(without_code(body))) or choices


def status_word(status: str) -> str:
    """What the status says, in one word of :data:`IN_FORCE`, :data:`NOT_YET`,
    :data:`NOT_IN_FORCE`, ``superseded``, or '' (unstated: in force)."""
    words = " ".join(re.findall(r"[a-z]+", status.lower()))
    for word in (*NOT_YET, *NOT_IN_FORCE, *IN_FORCE, "superseded"):
        if words.startswith(word):
            return word
    return ""


def record_date(meta: dict[str, Any], body: str) -> str | None:
    """The date the record states (YYYY-MM-DD), or None."""
    given = meta.get("date")
    if given:
        match = re.match(r"\d{4}-\d{2}-\d{2}", str(given))
        if match:
            return match.group(0)
    dated = _DATE.search(body)
    return dated.group(1) if dated else None


def decision_record(
    file: Path,
    where: str,
    meta: dict[str, Any],
    body: str,
    record_id: str,
    *,
    resolve: Resolve,
    max_words: int,
    git_date: str | None = None,
) -> Iterator[Record]:
    """The decision, the notes its overflow continues in, and the edges of its relations."""
    found = sections(body)
    title_match = _TITLE.search(body)
    outcome = found.get("decision") or found.get("decision outcome") or ""
    consequences = _items(found.get("consequences", ""))
    headed = list(_CONSEQUENCES.finditer(outcome))
    if headed:  # MADR: "### Consequences", or "### Positive / Negative Consequences"
        for n, heading in enumerate(headed):
            end = headed[n + 1].start() if n + 1 < len(headed) else len(outcome)
            said = "Negative: " if (heading.group(1) or "").lower() == "negative" else ""
            consequences += [said + item for item in _items(outcome[heading.end() : end])]
        outcome = outcome[: headed[0].start()]
    chosen = _CHOSEN.search(outcome)
    decision = outcome.strip() or (chosen.group(1).strip() if chosen else "")
    own = {
        "status",
        "decision",
        "decision outcome",
        "consequences",
        "context",
        "context and problem statement",
    }
    context = "\n\n".join(
        [found.get("context") or found.get("context and problem statement") or ""]
        + [f"## {title}\n\n{text}" for title, text in _titled(body) if title.lower() not in own and text]
    ).strip()
    overflow: list[str] = []
    parts = _cut_words(decision, max_words)
    decision, overflow = parts[0], overflow + parts[1:]
    if len(context) > CONTEXT_CHARS:
        head, rest = _cut_chars(context, CONTEXT_CHARS)
        context, overflow = head, overflow + [rest]
    fits = [c for c in consequences if len(c) <= CONSEQUENCE_CHARS]
    overflow += [c for c in consequences if len(c) > CONSEQUENCE_CHARS] + fits[MAX_CONSEQUENCES:]
    status = stated_status(meta, found, body)
    word = status_word(status)
    title = str(meta.get("title") or (title_match.group(1).rstrip() if title_match else file.stem))
    data: dict[str, Any] = {
        "id": record_id,
        "title": title[:300],
        "context": context or "(none given)",
        "decision": decision or "(none given)",
        "consequences": fits[:MAX_CONSEQUENCES],
    }
    date = record_date(meta, body)
    extra: dict[str, Any] = {"stated": word or "unstated", "dated": "record" if date else None}
    if not date and git_date:
        date, extra["dated"] = git_date, "git"
    if date:
        data["date"] = date
    in_force = word not in NOT_YET + NOT_IN_FORCE
    if not in_force:  # kept, and never shaping an agent's instructions
        data["status"] = "archived"
    tags = meta.get("tags") or []
    data["tags"] = [str(t)[:64] for t in (tags if isinstance(tags, list) else [tags])][:31]
    if word and word not in IN_FORCE:
        data["tags"].append(f"status:{word.replace(' ', '-')}")
    yield Record("decision", data, where, extra=extra)
    if overflow:
        more = {
            "id": f"{record_id}-more", "title": f"{title[:280]} (continued)",
            "content": "\n\n".join(overflow), "type": "decision", "source": "decision", "sourceRef": where,
            **({"status": data["status"]} if "status" in data else {}),
        }  # fmt: skip
        yield from split(Record("note", more, where), max_words)
        yield Record(
            "edge",
            {
                "sourceId": more["id"],
                "type": "relatedTo",
                "targetId": record_id,
                "note": "continues the record",
            },
            where,
        )
    yield from _relations(file, where, record_id, status, body, in_force, resolve)


def _relations(
    file: Path, where: str, record_id: str, status: str, body: str, in_force: bool, resolve: Resolve
) -> Iterator[Record]:
    """The edges of the relations the record states (module docstring)."""
    seen: set[tuple[str, str, str]] = set()
    word = status_word(status)
    bare_superseded = word == "superseded"
    texts = [status] + [line for line in body.splitlines() if line.strip() not in ("", status)]
    for text in texts:
        partly = opens = None  # what the line says as a whole, read once (a line may hold thousands)
        for match in _RELATION.finditer(text):
            phrase = match.group(1).lower()
            edge_type, note, newer = next(
                (t, n, w) for p, t, n, w in _RELATIONS if re.fullmatch(p, phrase, re.IGNORECASE)
            )
            if edge_type == "supersedes" and not newer and text is not status:
                if partly is None:
                    partly, opens = bool(_PART.search(text)), bool(_OPENS.match(text))
                if partly:
                    note, edge_type = "partly supersedes", "relatedTo"
                elif not opens:
                    continue  # a sentence that mentions it, not the record's statement
            if edge_type == "supersedes" and not newer and text is status and word in IN_FORCE:
                note, edge_type = "partly supersedes", "relatedTo"  # "Accepted; X superseded by ..."
            if edge_type == "supersedes" and newer and not in_force:
                note, edge_type = "would supersede (the record is not in force)", "relatedTo"
            for target in _targets(text, match.end()):
                other = resolve(target, file)
                if other is None or other == record_id:
                    continue
                source, end = (record_id, other) if newer else (other, record_id)
                if (source, edge_type, end) in seen:
                    continue
                seen.add((source, edge_type, end))
                if edge_type == "supersedes" and not newer:
                    bare_superseded = False
                edge = {"sourceId": source, "type": edge_type, "targetId": end}
                yield Record("edge", edge | ({"note": note} if note else {}), where)
    if bare_superseded:  # "Superseded", by nothing it links: the record says so, it is so
        yield Record("status", {"id": record_id, "status": "superseded"}, where)


def _targets(text: str, start: int) -> list[str]:
    """The records a relation ending at ``start`` names: the links (or "ADR-12" numbers) up
    to the next relation or the end of the sentence (read in place: a line of a thousand
    relations is read once, not a thousand times)."""
    following = _RELATION.search(text, start)
    end = following.start() if following else len(text)
    cut = _CUT.search(text, start, end)
    end = cut.start() if cut else end
    found = []
    for link in _LINK.finditer(text, start, end):
        path, wiki, number = link.groups()
        found.append(path or wiki or f"#{int(number)}")
    return found


def _titled(body: str) -> list[tuple[str, str]]:
    """Each ``##`` section's title (closing ``#`` left out) and text."""
    headings = list(_HEADING.finditer(body))
    ends = [h.start() for h in headings[1:]] + [len(body)] if headings else []
    return [
        (h.group(1).rstrip().rstrip("#").rstrip() or h.group(1).strip(), body[h.end() + 1 : end].strip())
        for h, end in zip(headings, ends, strict=True)
    ]


def _items(text: str) -> list[str]:
    """The items of a consequences list (bullets, or paragraphs), headings left out."""
    return [
        re.sub(r"^[-*]\s+", "", line).strip()
        for line in re.split(r"\n(?=[-*]\s)|\n\s*\n|\n(?=#)", text)
        if line.strip() and not line.strip().startswith("#")
    ]


def _cut_words(text: str, max_words: int) -> list[str]:
    """``text`` as parts of at most ``max_words`` words, cut at paragraphs where it can."""
    if len(text.split()) <= max_words:
        return [text]
    return parts(text, max_words)


def _cut_chars(text: str, limit: int) -> tuple[str, str]:
    """``text`` cut at the last paragraph (else line, else space) that fits in ``limit``."""
    for mark in ("\n\n", "\n", " "):
        at = text.rfind(mark, 0, limit)
        if at > limit // 2:
            return text[:at].strip(), text[at:].strip()
    return text[:limit], text[limit:]
