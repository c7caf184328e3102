"""The user profile (tier-3 memory): preferences (name → value) and a background text.

One ``Profile`` node per user, each preference a node of its own
(``(:Profile)-[:PREFERS]->(:Preference)``), so Neo4j Browser shows who the user is and
where each preference came from: set through the API by a person or an agent, or promoted
from a preference insight of conversation memory (``(:Preference)-[:PROMOTED_FROM]->
(:Insight)``, kept as ``insightId`` too). Every change is journaled with who made it
(:mod:`graph.core.journal`), in the transaction that makes it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from graph.conversations.insights import InsightService
from graph.core import journal
from graph.core.db import Database, Row
from graph.core.errors import Conflict, InvalidInput, NotFound
from graph.core.gate import Gated, WriteGate
from graph.core.principals import Principal
from graph.core.values import check_id, plain

#: A preference's value: a JSON scalar.
Value = str | int | float | bool
#: How a write changes the profile: from the preferences as they are ({name: {value,
#: insightId, threadId}}) and the background, to the new ones.
Change = Callable[[dict[str, dict[str, Any]], str | None], tuple[dict[str, dict[str, Any]], str | None]]
#: Most preferences a profile holds.
MAX_PREFERENCES = 200

_LEAD = re.compile(
    r"^(i|we)\s+(really\s+|strongly\s+|would\s+)?(prefer|like|love|want|hate|dislike|would rather|'d rather)"
    r"\s+(to\s+)?|^(please\s+)?(always|never)\s+|^my\s+favou?rite\s+",
    re.IGNORECASE,
)


def preference_name(content: str, words: int = 6) -> str:
    """A short name for a preference stated in ``content``: its object, lower-cased
    ("I really prefer dark mode in my editor." → ``dark mode in my editor``)."""
    stripped = _LEAD.sub("", content.strip()).strip(" .!?")
    parts = (stripped or content.strip(" .!?")).lower().split()
    return " ".join(parts[:words])[:100] or "preference"


def _state(profile: Mapping[str, Any] | None) -> dict[str, Any]:
    """The profile as the API and the journal show it."""
    if profile is None:
        return {"preferences": {}, "background": None, "sources": {}, "updatedAt": None}
    prefs = sorted(profile["preferences"], key=lambda f: f["name"])
    return {
        "preferences": {f["name"]: f["value"] for f in prefs},
        "background": profile["background"],
        "sources": {
            f["name"]: {
                "insightId": f.get("insightId"),
                "threadId": f.get("threadId"),
                "setByRole": f.get("setByRole"),
                "setByAgent": f.get("setByAgent"),
                "setAt": f.get("setAt"),
            }
            for f in prefs
        },
        "updatedAt": profile.get("updatedAt"),
    }


def _from_rows(rows: list[Row]) -> dict[str, Any]:
    """The profile from the rows of ``queries/continuity/profile_get`` (none: no profile yet)."""
    return _state(plain(rows[0]["profile"]) if rows else None)


def _same(a: Any, b: Any) -> bool:
    """Equal values of the same JSON type (``True`` is not ``1``)."""
    return type(a) is type(b) and a == b


def _unchanged(old: Mapping[str, dict[str, Any]], new: Mapping[str, dict[str, Any]]) -> bool:
    return old.keys() == new.keys() and all(
        _same(old[n]["value"], new[n]["value"]) and old[n].get("insightId") == new[n].get("insightId")
        for n in old
    )


def _journaled(state: Mapping[str, Any]) -> dict[str, Any]:
    return {"preferences": state["preferences"], "background": state["background"]}


class ProfileService:
    """The calling user's profile."""

    def __init__(self, db: Database, insights: InsightService) -> None:
        self._db = db
        self._gate = WriteGate(db)
        self._insights = insights

    async def get(self, principal: Principal) -> dict[str, Any]:
        """The profile (empty preferences and no background before the first write)."""
        return _from_rows(await self._db.read("queries/continuity/profile_get", userId=principal.user_id))

    @staticmethod
    async def _current(gated: Gated) -> dict[str, Any]:
        return _from_rows(await gated.run("queries/continuity/profile_get"))

    async def _write(
        self, principal: Principal, op: str, change: Change, *, undoing: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], str | None]:
        """Read the profile under the user's lock, let ``change`` compute the new one
        (``{name: {value, insightId?, threadId?}}``, background), write it and journal it;
        the profile and the mutation's id (``None`` when nothing changed). ``undoing`` is
        the mutation this write undoes: a later change of the profile makes that a 409."""

        async def work(gated: Gated) -> tuple[dict[str, Any], str | None]:
            if undoing is not None:
                later = await journal.later(gated, undoing)
                if later:
                    raise Conflict(
                        f"the profile changed after mutation {undoing['id']!r} ({later[0]['op']} "
                        f"{later[0]['id']!r}); undo that first",
                        blocking_mutation=later[0]["id"],
                    )
            before = await self._current(gated)
            src = before["sources"]
            kept = {
                name: {"value": value, "insightId": src[name]["insightId"], "threadId": src[name]["threadId"]}
                for name, value in before["preferences"].items()
            }
            preferences, background = change(kept, before["background"])
            if _unchanged(kept, preferences) and background == before["background"]:
                return before, None  # nothing to write, nothing to journal
            if len(preferences) > MAX_PREFERENCES:
                raise InvalidInput(
                    f"a profile holds at most {MAX_PREFERENCES} preferences", field="preferences"
                )
            await gated.run(
                "queries/continuity/profile_write",
                background=background,
                preferences=[{"name": n, **p} for n, p in sorted(preferences.items())],
                role=principal.role.value,
                agentId=principal.agent_id,
            )
            after = await self._current(gated)
            [mutation_id] = await journal.record_many(gated, principal, [journal.Change(
                op, "Profile", principal.user_id, _journaled(before), _journaled(after),
                undoes=undoing["id"] if undoing else None,
            )])  # fmt: skip
            return after, mutation_id

        return await self._gate.write(principal.user_id, work)

    async def undo(self, principal: Principal, mutation: dict[str, Any]) -> str | None:
        """Bring the profile back to its state before ``mutation`` (journaled as a
        ``profile.replace`` that undoes it); the undo's mutation id."""
        restore = mutation.get("before") or {"preferences": {}, "background": None}

        def change(kept: dict[str, dict[str, Any]], _: str | None) -> tuple[dict[str, Any], str | None]:
            new = {
                name: kept[name] if name in kept and _same(kept[name]["value"], value) else {"value": value}
                for name, value in restore["preferences"].items()
            }
            return new, restore["background"]

        _, mutation_id = await self._write(principal, "profile.replace", change, undoing=mutation)
        return mutation_id

    async def replace(
        self, principal: Principal, preferences: Mapping[str, Value], background: str | None
    ) -> dict[str, Any]:
        """Replace the whole profile. A preference whose value stays keeps its source."""

        def change(kept: dict[str, dict[str, Any]], _: str | None) -> tuple[dict[str, Any], str | None]:
            new = {
                name: kept[name] if name in kept and _same(kept[name]["value"], value) else {"value": value}
                for name, value in preferences.items()
            }
            return new, background

        profile, _ = await self._write(principal, "profile.replace", change)
        return profile

    async def patch(
        self,
        principal: Principal,
        preferences: Mapping[str, Value | None],
        background: str | None,
        *,
        background_given: bool,
    ) -> dict[str, Any]:
        """Merge-patch the profile: a preference set to ``None`` is removed, the others set;
        the background changes only when given (``None`` clears it)."""

        def change(
            kept: dict[str, dict[str, Any]], old_background: str | None
        ) -> tuple[dict[str, Any], str | None]:
            new = dict(kept)
            for name, value in preferences.items():
                if value is None:
                    new.pop(name, None)
                elif name not in new or not _same(new[name]["value"], value):
                    new[name] = {"value": value}
            return new, background if background_given else old_background

        profile, _ = await self._write(principal, "profile.patch", change)
        return profile

    async def promote(
        self, principal: Principal, insight_ids: Sequence[str], names: Mapping[str, str]
    ) -> dict[str, Any]:
        """Preference insights become preferences, each keeping the insight it came from:
        named ``names[insightId]`` or after what it states, valued with its sentence."""
        ids = [check_id(i, "insightIds") for i in insight_ids]
        for insight_id in names:
            if insight_id not in ids:
                raise InvalidInput(f"{insight_id!r} is named but not in insightIds", field="names")
        insights = await self._insights.by_ids(principal, ids)
        missing = [i for i in ids if i not in insights]
        if missing:
            raise NotFound(f"no insight {missing[0]!r}", field="insightIds")
        wrong = [i for i in ids if insights[i]["type"] != "preference"]
        if wrong:
            raise InvalidInput(
                f"insight {wrong[0]!r} is a {insights[wrong[0]]['type']}, not a preference; "
                "only preference insights are promoted",
                field="insightIds",
            )
        promoted = {
            names.get(i) or preference_name(insights[i]["content"]): {
                "value": insights[i]["content"],
                "insightId": i,
                "threadId": insights[i]["threadId"],
            }
            for i in ids
        }
        if len(promoted) < len(ids):
            raise InvalidInput("two insights would become one preference name; name them", field="names")

        def change(
            kept: dict[str, dict[str, Any]], background: str | None
        ) -> tuple[dict[str, Any], str | None]:
            return {**kept, **promoted}, background

        profile, _ = await self._write(principal, "profile.promote", change)
        return profile
