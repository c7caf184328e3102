"""The user profile (tier-3 memory): preferences (name → value) and a background text.

One ``Profile`` node per user, each preference a node of its own
(``(:Profile)-[:PREFERS]->(:Preference)``), so Neo4j Browser shows who the user is and
where each preference came from: set through the API by a person or an agent, or promoted
from a preference insight of conversation memory (``(:Preference)-[:PROMOTED_FROM]->
(:Insight)``, kept as ``insightId`` too). Every change is journaled with who made it
(:mod:`graph.core.journal`), in the transaction that makes it.

**A person's word holds here as in the knowledge network.** Who wrote each preference, and
the background, is stored with it in the profile (``setByRole``, ``setByAgent``), and the
names of preferences a person removed are kept on the profile, so the rule needs no look-up
in the journal:

* an agent's write (PUT, PATCH, promote, or the undo of a mutation) that would change or
  remove a preference a person wrote or corrected, change or clear a background a person
  wrote, or bring back a preference a person removed, is not applied: the whole write is
  stored as a ``Proposal`` (``profile.replace``, ``profile.patch``, ``profile.promote``,
  ``profile.undo``) that a person approves (it is applied then, as theirs) or rejects;
* a person's change of what an agent wrote (a preference's value, its removal, the
  background) is a ``Correction`` (:mod:`graph.knowledge.corrections`) whose fields are
  ``preferences.<name>`` and ``background``; the preference keeps its id as ``correctionId``,
  and the proposal an agent's write over it becomes names it.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from graph.conversations.insights import InsightService
from graph.core import journal
from graph.core.db import Database, Row
from graph.core.errors import Conflict, InvalidInput, NotFound
from graph.core.gate import Gated, WriteGate
from graph.core.principals import Principal, Role
from graph.core.scopes import require_unscoped
from graph.core.values import check_id, plain
from graph.knowledge import corrections
from graph.knowledge.models import Proposed

#: A preference's value: a JSON scalar.
Value = str | int | float | bool
#: How a write changes the profile: from the preferences as they are ({name: {value,
#: insightId, threadId}}) and the background, to the new ones.
Change = Callable[[dict[str, dict[str, Any]], str | None], tuple[dict[str, dict[str, Any]], str | None]]
#: Most preferences a profile holds.
MAX_PREFERENCES = 200
#: Most names of preferences a person removed that the profile remembers (the oldest go).
MAX_REMOVED = 200
#: Runs in the transaction that applies an approved proposal (marks it approved).
Then = Callable[[Gated, Any], Awaitable[None]]
#: The field of a correction or proposal that names the background.
BACKGROUND = "background"

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
    state = {
        "preferences": {f["name"]: f["value"] for f in prefs},
        "background": profile["background"],
        "sources": {
            f["name"]: {
                "insightId": f.get("insightId"),
                "threadId": f.get("threadId"),
                "setByRole": f.get("setByRole"),
                "setByAgent": f.get("setByAgent"),
                "setAt": f.get("setAt"),
                "correctionId": f.get("correctionId"),
            }
            for f in prefs
        },
        "updatedAt": profile.get("updatedAt"),
    }
    if profile.get("backgroundSetByRole") is not None:
        state["backgroundSource"] = {
            "setByRole": profile["backgroundSetByRole"],
            "setByAgent": profile.get("backgroundSetByAgent"),
            "correctionId": profile.get("backgroundCorrectionId"),
        }
    return state


def _from_rows(rows: list[Row]) -> dict[str, Any]:
    """The profile from the rows of ``queries/continuity/profile_get`` (none: no profile yet)."""
    return _state(plain(rows[0]["profile"]) if rows else None)


def _removed(rows: list[Row]) -> list[str]:
    """The names of preferences a person removed, oldest first."""
    return list(rows[0]["profile"].get("removedByPerson") or []) if rows else []


def _by_person(source: Mapping[str, Any] | None) -> bool:
    return source is not None and source.get("setByRole") == Role.HUMAN.value


def _moved(old: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> bool:
    """Whether a write sets, changes or removes this preference (value or source)."""
    if old is None or new is None:
        return old is not new
    return not _same(old["value"], new["value"]) or old.get("insightId") != new.get("insightId")


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
        require_unscoped(principal, "the profile")
        return _from_rows(await self._db.read("queries/continuity/profile_get", userId=principal.user_id))

    @staticmethod
    async def _current(gated: Gated) -> tuple[dict[str, Any], list[str]]:
        rows = await gated.run("queries/continuity/profile_get")
        return _from_rows(rows), _removed(rows)

    async def _write(
        self,
        principal: Principal,
        op: str,
        change: Change,
        *,
        payload: dict[str, Any],
        undoing: dict[str, Any] | None = None,
        approving: str | None = None,
        then: Then | None = None,
    ) -> tuple[dict[str, Any], str | None] | Proposed:
        """Read the profile under the user's lock, let ``change`` compute the new one
        (``{name: {value, insightId?, threadId?}}``, background), write it and journal it;
        the profile and the mutation's id (``None`` when nothing changed). ``undoing`` is
        the mutation this write undoes: a later change of the profile makes that a 409.

        An agent's write over a person's word becomes a proposal of ``payload`` (the
        request as :meth:`approve` applies it); a person's write over an agent's is a
        correction. ``approving`` names the proposal a person approved, when this write is
        one, and ``then`` runs in the same transaction (it marks the proposal approved)."""

        async def work(gated: Gated) -> tuple[dict[str, Any], str | None] | Proposed:
            if undoing is not None:
                later = await journal.later(gated, undoing)
                if later:
                    raise Conflict(
                        f"the profile changed after mutation {undoing['id']!r} ({later[0]['op']} "
                        f"{later[0]['id']!r}); undo that first",
                        blocking_mutation=later[0]["id"],
                    )
            before, removed = await self._current(gated)
            src = before["sources"]
            kept = {
                name: {"value": value, "insightId": src[name]["insightId"], "threadId": src[name]["threadId"]}
                for name, value in before["preferences"].items()
            }
            preferences, background = change(kept, before["background"])
            names = kept.keys() | preferences.keys()
            moved = sorted(n for n in names if _moved(kept.get(n), preferences.get(n)))
            background_moved = background != before["background"]
            if not moved and not background_moved:  # nothing to write, nothing to journal
                if then is not None:
                    await then(gated, None)
                return before, None
            if len(preferences) > MAX_PREFERENCES:
                raise InvalidInput(
                    f"a profile holds at most {MAX_PREFERENCES} preferences", field="preferences"
                )
            # A background older than its provenance counts as a person's: it is held.
            background_by = before.get("backgroundSource") or (
                {"setByRole": Role.HUMAN.value} if before["background"] is not None else None
            )
            agent = corrections.is_agent(principal)
            if agent and approving is None:
                held = {n for n in moved if _by_person(src.get(n)) or (n not in kept and n in removed)}
                fields = {f"preferences.{n}" for n in held}
                challenged = {src[n]["correctionId"] for n in held if n in src and src[n].get("correctionId")}
                if background_moved and _by_person(background_by):
                    fields.add(BACKGROUND)
                    if background_by and background_by.get("correctionId"):
                        challenged.add(background_by["correctionId"])
                if fields:
                    return Proposed(await corrections.propose(
                        gated, principal, op=op if undoing is None else "profile.undo",
                        target_id=principal.user_id, payload=payload, fields=fields, corrections=challenged,
                    ))  # fmt: skip
            if not agent:  # what a person removes, no agent brings back unasked
                gone = [n for n in moved if n not in preferences]
                removed = [n for n in removed if n not in preferences and n not in gone] + gone
            await gated.run(
                "queries/continuity/profile_write",
                background=background,
                backgroundChanged=background_moved,
                preferences=[{"name": n, **p} for n, p in sorted(preferences.items())],
                removed=removed[-MAX_REMOVED:],
                role=principal.role.value,
                agentId=principal.agent_id,
            )
            after, _ = await self._current(gated)
            [mutation_id] = await journal.record_many(gated, principal, [journal.Change(
                op, "Profile", principal.user_id, _journaled(before), _journaled(after),
                undoes=undoing["id"] if undoing else None, proposal_id=approving,
            )])  # fmt: skip
            if not agent:
                fixed = [n for n in moved if n in src and not _by_person(src[n])]
                fixed_background = (
                    background_moved and background_by is not None and not _by_person(background_by)
                )
                if fixed or fixed_background:
                    await self._correct(
                        gated, principal, mutation_id, kept, preferences, fixed,
                        (before["background"], background) if fixed_background else None,
                    )  # fmt: skip
                    after, _ = await self._current(gated)
            if then is not None:
                await then(gated, None)
            return after, mutation_id

        return await self._gate.write(principal.user_id, work)

    @staticmethod
    async def _correct(
        gated: Gated,
        principal: Principal,
        mutation_id: str,
        kept: Mapping[str, dict[str, Any]],
        preferences: Mapping[str, dict[str, Any]],
        names: list[str],
        background: tuple[str | None, str | None] | None,
    ) -> None:
        """Record a person's change of agent-written preferences (and background) as one
        correction, and mark what it covers with its id."""
        before = {f"preferences.{n}": kept[n]["value"] for n in names}
        after = {f"preferences.{n}": preferences[n]["value"] if n in preferences else None for n in names}
        if background is not None:
            before[BACKGROUND], after[BACKGROUND] = background
        removed_all = all(n not in preferences for n in names) and (
            background is None or background[1] is None
        )
        correction_id = await corrections.record(
            gated, principal, mutation_id=mutation_id, kind="delete" if removed_all else "update",
            node_id=principal.user_id, fields=before, before=before, after=after, target_type="Profile",
        )  # fmt: skip
        await gated.run(
            "queries/continuity/profile_corrected",
            correctionId=correction_id,
            names=[n for n in names if n in preferences],
            background=background is not None,
        )

    async def undo(
        self,
        principal: Principal,
        mutation: dict[str, Any],
        *,
        approving: str | None = None,
        then: Then | None = None,
    ) -> str | None | Proposed:
        """Bring the profile back to its state before ``mutation`` (journaled as a
        ``profile.replace`` that undoes it); the undo's mutation id, or the proposal an
        agent's undo over a person's word became."""
        require_unscoped(principal, "the profile")
        restore = mutation.get("before") or {"preferences": {}, "background": None}

        def change(kept: dict[str, dict[str, Any]], _: str | None) -> tuple[dict[str, Any], str | None]:
            new = {
                name: kept[name] if name in kept and _same(kept[name]["value"], value) else {"value": value}
                for name, value in restore["preferences"].items()
            }
            return new, restore["background"]

        done = await self._write(
            principal, "profile.replace", change, payload={"mutationId": mutation["id"]}, undoing=mutation,
            approving=approving, then=then,
        )  # fmt: skip
        return done if isinstance(done, Proposed) else done[1]

    async def replace(
        self,
        principal: Principal,
        preferences: Mapping[str, Value],
        background: str | None,
        *,
        approving: str | None = None,
        then: Then | None = None,
    ) -> dict[str, Any] | Proposed:
        """Replace the whole profile. A preference whose value stays keeps its source."""
        require_unscoped(principal, "the profile")

        def change(kept: dict[str, dict[str, Any]], _: str | None) -> tuple[dict[str, Any], str | None]:
            new = {
                name: kept[name] if name in kept and _same(kept[name]["value"], value) else {"value": value}
                for name, value in preferences.items()
            }
            return new, background

        payload = {"preferences": dict(preferences), "background": background}
        done = await self._write(
            principal, "profile.replace", change, payload=payload, approving=approving, then=then
        )
        return done if isinstance(done, Proposed) else done[0]

    async def patch(
        self,
        principal: Principal,
        preferences: Mapping[str, Value | None],
        background: str | None,
        *,
        background_given: bool,
        approving: str | None = None,
        then: Then | None = None,
    ) -> dict[str, Any] | Proposed:
        """Merge-patch the profile: a preference set to ``None`` is removed, the others set;
        the background changes only when given (``None`` clears it)."""
        require_unscoped(principal, "the profile")

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

        payload = {
            "preferences": dict(preferences), "background": background, "backgroundGiven": background_given,
        }  # fmt: skip
        done = await self._write(
            principal, "profile.patch", change, payload=payload, approving=approving, then=then
        )
        return done if isinstance(done, Proposed) else done[0]

    async def promote(
        self,
        principal: Principal,
        insight_ids: Sequence[str],
        names: Mapping[str, str],
        *,
        approving: str | None = None,
        then: Then | None = None,
    ) -> dict[str, Any] | Proposed:
        """Promote preference insights into preferences, each keeping the insight it came from:
        named ``names[insightId]`` or after what it states, valued with its sentence."""
        require_unscoped(principal, "the profile")
        ids = [check_id(i, "insightIds") for i in insight_ids]
        for insight_id in names:
            if insight_id not in ids:
                raise Conflict(f"{insight_id!r} is named but not in insightIds", field="names")
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

        payload = {"insightIds": ids, "names": dict(names)}
        done = await self._write(
            principal, "profile.promote", change, payload=payload, approving=approving, then=then
        )
        return done if isinstance(done, Proposed) else done[0]

    async def approve(self, principal: Principal, proposal: dict[str, Any], then: Then) -> None:
        """Apply a proposal of a profile write as ``principal`` (a person), with ``then`` in
        the same transaction (:mod:`graph.knowledge.proposals` dispatches ``profile.*`` here)."""
        require_unscoped(principal, "the profile")
        op, payload, proposal_id = proposal["op"], proposal["payload"], proposal["id"]
        if op == "profile.replace":
            await self.replace(
                principal, payload["preferences"], payload["background"], approving=proposal_id, then=then
            )
        elif op == "profile.patch":
            await self.patch(
                principal, payload["preferences"], payload["background"],
                background_given=payload["backgroundGiven"], approving=proposal_id, then=then,
            )  # fmt: skip
        elif op == "profile.promote":
            await self.promote(
                principal, payload["insightIds"], payload["names"], approving=proposal_id, then=then
            )
        elif op == "profile.undo":
            mutation = await journal.find(self._db, principal, payload["mutationId"])
            if mutation is None:
                raise Conflict(f"the mutation to undo, {payload['mutationId']!r}, is gone", field="id")
            await self.undo(principal, mutation, approving=proposal_id, then=then)
        else:
            raise InvalidInput(f"{op!r} is not a profile write", field="op")


#: The proposal operations :meth:`ProfileService.approve` applies.
PROPOSAL_OPS = ("profile.replace", "profile.patch", "profile.promote", "profile.undo")
