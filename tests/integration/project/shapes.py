"""The people a generated memory talks about, and the memory itself: who writes it (a person
and an agent of one user), what each subject's things are called, and where each went.

A **subject** is a name in one script, written in several forms (cases, decomposed accents,
compatibility forms) that all hold the same text by a forget's comparison (Unicode caseless,
NFKC), and forgotten by yet another form of it: "Émile Drøvalén" planted, "ÉMILE DRØVALÉN"
asked; "Weißhaupt" and "WEISSHAUPT"; "Иван" and "иван"; "Σοφία" and "ΣΟΦΊΑ"; CJK; half-width
kana asked in full width. Every name is generated from the seed, so a run is repeated from
its seed alone, and no name holds another's text or any English word the shapes use."""

from __future__ import annotations

import random
import unicodedata
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx

from tests.integration.conftest import Caller
from tests.integration.project.export_records import fold

_GIVEN = {
    "latin": ("Émile", "Øyvind", "Zoë", "Agnès", "Jérôme", "Åsa", "Ólafur", "Bjørn", "Inès", "Léonie"),
    "german": ("Jürgen", "Käthe", "Grete", "Dörte", "Jörg", "Mareike"),
    "turkish": ("İlkay", "İsmail", "İpek", "İrem", "İlhan"),
    "cyrillic": ("Иван", "Мария", "Ольга", "Пётр", "Юлия", "Дмитрий"),
    "greek": ("Σοφία", "Νίκος", "Ελένη", "Γιώργος", "Δήμητρα"),
    "cjk": ("王", "李", "张", "刘", "陈", "杨", "黄", "赵"),
    "kana": ("ｻ", "ﾀ", "ｶ", "ﾅ"),
    "fullwidth": ("Ｍａｒｔａ", "Ｌｕｃａ", "Ｎｏｒａ", "Ｉｖｏ"),
}
_SYLLABLES = {
    "latin": (("dr", "kv", "st", "br", "l", "m", "v", "s", "g"), ("ø", "å", "æ", "é", "ü", "ö", "è")),
    "german": (("w", "br", "h", "gr", "kl", "str"), ("ei", "au", "ö", "ü", "ä")),
    "turkish": (("g", "d", "ş", "ç", "k", "l", "y"), ("ü", "ö", "a", "e", "o")),
    "cyrillic": (("м", "л", "в", "р", "д", "ж", "к", "т"), ("о", "а", "и", "е", "у", "я")),
    "greek": (("π", "δ", "κ", "λ", "μ", "ν", "τ", "χ"), ("α", "ο", "ά", "ή", "ί", "ό", "ε")),
    "cjk": (("小明伟芳娜敏静丽强磊军洋勇艳杰涛超秀霞平刚桂", "")),
    "kana": (("ｶｷｸｹｺｻｼｽｾｿﾀﾁﾂﾃﾄﾅﾆﾇﾈﾉ", "")),
    "fullwidth": (("ｋｖｄｒｚｇ", "ａｏｕｅｉ")),
}
SCRIPTS = tuple(_GIVEN)
#: Scripts the first three subjects (those forgotten by their text) leave to the fourth: the
#: six the issue names come first. Full-width forms reach every subject through its spellings.
EXTRA = ("kana", "fullwidth")


def _family(rng: random.Random, script: str) -> str:
    """A surname made of the script's syllables: long enough that no English word holds it."""
    onsets, vowels = _SYLLABLES[script]
    if script in ("cjk", "kana"):
        return "".join(rng.choice(onsets) for _ in range(rng.randint(3, 4)))
    word = "".join(rng.choice(onsets) + rng.choice(vowels) for _ in range(3)) + rng.choice(onsets)
    if script == "german":
        word += rng.choice(("ßler", "straße", "ßmann"))
    if script == "greek":
        word += "ς"
    if script == "turkish":
        return "İ" + word
    return word[:1].upper() + word[1:]


def _wide(text: str) -> str:
    """``text`` with its ASCII letters in their full-width forms (NFKC reads them back)."""
    return "".join(chr(ord(c) + 0xFEE0) if c.isascii() and c.isalpha() else c for c in text)


def _forms(name: str) -> list[str]:
    """Spellings of ``name`` that hold the same text by the forget's comparison."""
    candidates = [
        name,
        name.upper(),
        name.lower(),
        name.title(),
        unicodedata.normalize("NFD", name),
        unicodedata.normalize("NFKC", name),
        unicodedata.normalize("NFD", name.upper()),
        _wide(name),
    ]
    out: list[str] = []
    for form in candidates:
        if fold(form) == fold(name) and form not in out:
            out.append(form)
    return out


@dataclass
class Subject:
    """A person the memory talks about: one name, its spellings, and what to forget it by."""

    label: str  # what the subject's ids carry (never its name: ids are not forgotten)
    script: str
    name: str
    forms: list[str]
    query: str
    tag: str
    rng: random.Random

    def say(self) -> str:
        """The name in one of its spellings."""
        return self.rng.choice(self.forms)

    def id(self, what: str) -> str:
        """A fresh id for one of the subject's things."""
        return f"{self.label}-{what}-{uuid.UUID(int=self.rng.getrandbits(128)).hex[:8]}"


def subjects(rng: random.Random, count: int) -> list[Subject]:
    """``count`` subjects, each named in two scripts (a given name from one, a family name from
    the next): the first three cover É, Ø, ß, İ, Cyrillic, Greek and CJK between them, the
    fourth half-width kana and full-width Latin. Each is asked by another spelling of its whole
    name, or of its family name alone."""
    core = [c for c in SCRIPTS if c not in EXTRA]
    scripts = rng.sample(core, len(core)) + rng.sample(EXTRA, len(EXTRA))
    made: list[Subject] = []
    while len(made) < count:
        given, family = scripts[(2 * len(made)) % len(scripts)], scripts[(2 * len(made) + 1) % len(scripts)]
        surname = _family(rng, family)
        name = f"{rng.choice(_GIVEN[given])} {surname}"
        if any(fold(surname) in fold(s.name) or fold(s.name.split(" ")[-1]) in fold(name) for s in made):
            continue
        forms = _forms(name)
        asked = _forms(surname) if rng.random() < 0.3 else forms
        query = rng.choice([f for f in asked if f not in (name, surname)] or asked)
        label = f"s{len(made)}"
        made.append(
            Subject(
                label, f"{given}+{family}", name, forms, query, f"tag-{label}", random.Random(rng.random())
            )
        )
    return made


@dataclass
class World:
    """One user's memory as it is generated: a person and an agent of the user, the subjects,
    and the ids of what was planted for each subject, by kind."""

    person: Caller
    agent: Caller
    rng: random.Random
    made: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    calls: int = 0
    #: Per subject, an agent's note a person deleted: writing it again is held for the person.
    held: dict[str, dict[str, Any]] = field(default_factory=dict)

    def note(self, subject: Subject, kind: str, thing_id: str) -> str:
        """Remember that ``thing_id`` (a note, a thread, ...) was planted for ``subject``."""
        self.made.setdefault(subject.label, {}).setdefault(kind, []).append(thing_id)
        return thing_id

    def of(self, subject: Subject, kind: str) -> list[str]:
        """The ids of one kind planted for ``subject``."""
        return self.made.get(subject.label, {}).get(kind, [])

    async def send(self, caller: Caller, method: str, path: str, body: Any = None, *codes: int) -> Any:
        """One call; its JSON once its status is one of ``codes`` (200/201 by default)."""
        self.calls += 1
        answer = await caller.http.request(method, path, json=body)
        return ok(answer, *codes)


def ok(answer: httpx.Response, *codes: int) -> Any:
    """An answer's JSON, once its status is one of ``codes`` (200 or 201 by default)."""
    assert answer.status_code in (codes or (200, 201)), (
        answer.request.method,
        answer.request.url,
        answer.status_code,
        answer.text[:600],
    )
    return answer.json() if answer.content else None
