"""Skills: how-to pages (markdown) an agent loads when their trigger fits, kept per user.

A skill has an id, a name, a markdown body, a bundle it ships in, a trigger (when to use
it) and tags. Listing leaves the bodies out; loading returns the body and counts the load
(atomically, under the user's write gate). Writing a skill with an id that exists
redefines it and keeps its count. Creating and redefining are journaled (``skill.create``,
``skill.update``); a load is use, not a change of memory, so the journal does not list it.

Skills are shared by every key of the user, scoped keys included: every key reads and
loads them all. A key with an entity scope creates skills of its own, but redefines only
a skill its own agent created and wrote last (:func:`written_by`); any other skill, a
person's or another agent's, it cannot change (:class:`Forbidden` on ``id``).

A starter bundle ships with the project (``starter_skills/*.md``: front matter, then the
body) and is installed with ``ctxnet skills install --user U``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import yaml

from ctxnet.wire.continuity.skills import MAX_BODY, MAX_NAME, MAX_TAG, MAX_TAGS, MAX_TRIGGER
from graph.core import journal
from graph.core.db import Database
from graph.core.errors import Forbidden, InvalidInput, NotFound
from graph.core.gate import Gated, WriteGate
from graph.core.principals import Principal
from graph.core.values import check_id, plain

MAX_BATCH = 200
#: What a skill write compares and journals.
FIELDS = ("name", "bodyMd", "bundle", "trigger", "tags")


@dataclass(frozen=True)
class NewSkill:
    """A skill to create or redefine (checked by :meth:`checked`)."""

    id: str
    name: str
    body_md: str
    bundle: str = "default"
    trigger: str = ""
    tags: tuple[str, ...] = field(default_factory=tuple)

    def checked(self, prefix: str = "") -> NewSkill:
        """The skill, or :class:`InvalidInput` naming the field (under ``prefix``)."""
        check_id(self.id, f"{prefix}id")
        check_id(self.bundle, f"{prefix}bundle")
        for name, value, most in (
            ("name", self.name, MAX_NAME),
            ("bodyMd", self.body_md, MAX_BODY),
            ("trigger", self.trigger, MAX_TRIGGER),
        ):
            if len(value) > most:
                raise InvalidInput(f"{name} is longer than {most} characters", field=f"{prefix}{name}")
        for name, value in (("name", self.name), ("bodyMd", self.body_md)):
            if not value.strip():
                raise InvalidInput(f"{name} must not be blank", field=f"{prefix}{name}")
        if len(self.tags) > MAX_TAGS or any(not t.strip() or len(t) > MAX_TAG for t in self.tags):
            raise InvalidInput(f"at most {MAX_TAGS} tags of 1-{MAX_TAG} characters", field=f"{prefix}tags")
        return self

    def row(self) -> dict[str, Any]:
        return {
            "id": self.id, "name": self.name, "bodyMd": self.body_md, "bundle": self.bundle,
            "trigger": self.trigger, "tags": list(self.tags),
        }  # fmt: skip


class SkillService:
    """The calling user's skills."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._gate = WriteGate(db)

    async def list_skills(
        self, principal: Principal, *, bundle: str | None = None, limit: int = 100, cursor: str | None = None
    ) -> tuple[list[dict[str, Any]], str | None]:
        """Skills by id, without their bodies."""
        rows = await self._db.read(
            "queries/continuity/skills_list", userId=principal.user_id, ids=None,
            bundle=check_id(bundle, "bundle") if bundle else None,
            afterId=check_id(cursor, "cursor") if cursor else None, limit=limit + 1, withBody=False,
        )  # fmt: skip
        items = [skill_view(r["skill"]) for r in rows[:limit]]
        return items, items[-1]["id"] if len(rows) > limit else None

    async def get(self, principal: Principal, skill_id: str) -> dict[str, Any]:
        """One skill with its body (reading is not loading: the count stays)."""
        rows = await self._db.read(
            "queries/continuity/skills_list", userId=principal.user_id, ids=[check_id(skill_id)],
            bundle=None, afterId=None, limit=1, withBody=True,
        )  # fmt: skip
        if not rows:
            raise NotFound(f"no skill {skill_id!r}", field="id")
        return skill_view(rows[0]["skill"])

    async def put(self, principal: Principal, skills: list[NewSkill]) -> list[tuple[dict[str, Any], str]]:
        """Create or redefine skills in one write; each with ``created``, ``updated`` or
        ``unchanged``."""
        if len(skills) > MAX_BATCH:
            raise InvalidInput(f"at most {MAX_BATCH} skills per write", field="items")
        ids = [s.id for s in skills]
        if len(set(ids)) != len(ids):
            raise InvalidInput("each skill id once per write", field="items")

        async def work(gated: Gated) -> list[tuple[dict[str, Any], str]]:
            rows = await gated.run(
                "queries/continuity/skills_list", ids=ids, bundle=None, afterId=None, limit=len(ids),
                withBody=True,
            )  # fmt: skip
            now = {r["skill"]["id"]: r["skill"] for r in rows}
            outcome: dict[str, str] = {}
            changes: list[journal.Change] = []
            writes: list[dict[str, Any]] = []
            for skill in skills:
                wanted = skill.row()
                was = now.get(skill.id)
                if was is None:
                    outcome[skill.id] = "created"
                    changes.append(journal.Change("skill.create", "Skill", skill.id, None, _fields(wanted)))
                elif changed := {k: wanted[k] for k in FIELDS if wanted[k] != was[k]}:
                    if principal.scope is not None and not written_by(principal, was):
                        where = "id" if len(skills) == 1 else f"items.{ids.index(skill.id)}.id"
                        raise Forbidden(
                            f"skill {skill.id!r} was written by another key (a person or another agent); "
                            "a scoped key redefines only skills its own agent wrote: create yours under "
                            "another id",
                            field=where,
                        )
                    outcome[skill.id] = "updated"
                    before = {k: was[k] for k in changed}
                    changes.append(journal.Change("skill.update", "Skill", skill.id, before, changed))
                else:
                    outcome[skill.id] = "unchanged"
                    continue
                writes.append(wanted)
            if writes:
                await gated.run(
                    "queries/continuity/skills_write", rows=writes, role=principal.role.value,
                    agentId=principal.agent_id,
                )  # fmt: skip
                await journal.record_many(gated, principal, changes)
            after = await gated.run(
                "queries/continuity/skills_list", ids=ids, bundle=None, afterId=None, limit=len(ids),
                withBody=True,
            )  # fmt: skip
            by_id = {r["skill"]["id"]: skill_view(r["skill"]) for r in after}
            return [(by_id[i], outcome[i]) for i in ids]

        return await self._gate.write(principal.user_id, work)

    async def load(self, principal: Principal, skill_id: str) -> dict[str, Any]:
        """The skill with its body, its invocation count raised by one (under the gate, so
        concurrent loads each count)."""
        skill_id = check_id(skill_id)

        async def work(gated: Gated) -> dict[str, Any]:
            if not await gated.run("queries/continuity/skill_load", id=skill_id):
                raise NotFound(f"no skill {skill_id!r}", field="id")
            [row] = await gated.run(
                "queries/continuity/skills_list", ids=[skill_id], bundle=None, afterId=None, limit=1,
                withBody=True,
            )  # fmt: skip
            return skill_view(row["skill"])  # the count this load made, read in its transaction

        return await self._gate.write(principal.user_id, work)


def written_by(principal: Principal, skill: dict[str, Any]) -> bool:
    """Whether ``principal``'s own agent created the stored ``skill`` and wrote it last."""
    mine = ("agent", principal.agent_id)
    return principal.agent_id is not None and (
        (skill.get("createdByRole"), skill.get("createdByAgent")) == mine
        and (skill.get("updatedByRole"), skill.get("updatedByAgent")) == mine
    )


def _fields(row: dict[str, Any]) -> dict[str, Any]:
    return {k: row[k] for k in FIELDS}


def skill_view(row: dict[str, Any]) -> dict[str, Any]:
    """A skill as the API shows it (``bodyMd`` only when it was read)."""
    s = plain(row)
    view = {
        "id": s["id"], "name": s["name"], "bundle": s["bundle"], "trigger": s.get("trigger") or "",
        "tags": s.get("tags") or [], "invocationCount": s.get("invocationCount") or 0,
        "createdAt": s["createdAt"], "updatedAt": s["updatedAt"],
        "createdBy": {"role": s.get("createdByRole"), "agentId": s.get("createdByAgent")},
        "updatedBy": {"role": s.get("updatedByRole"), "agentId": s.get("updatedByAgent")},
    }  # fmt: skip
    if s.get("lastLoadedAt") is not None:
        view["lastLoadedAt"] = s["lastLoadedAt"]
    if s.get("bodyMd") is not None:
        view["bodyMd"] = s["bodyMd"]
    return view


def starter_skills() -> list[NewSkill]:
    """The starter bundle that ships with the project (``starter_skills/*.md``)."""
    folder = resources.files("graph.continuity").joinpath("starter_skills")
    skills = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".md"):
            continue
        text = entry.read_text(encoding="utf-8")
        _, front, body = text.split("---\n", 2)
        meta = yaml.safe_load(front)
        skills.append(
            NewSkill(
                id=meta["id"], name=meta["name"], body_md=body.strip() + "\n", bundle=meta["bundle"],
                trigger=meta["trigger"], tags=tuple(meta.get("tags") or ()),
            ).checked(f"{entry.name}: ")
        )  # fmt: skip
    return skills
