"""A whole user, read out page by page (``GET /v1/export/all``): every node that carries
their id and every relationship between two of them, in the format of
:mod:`graph.io.format`.

The pages come in a fixed order: the header (format, user, the journal's sequence, the
Tenant node's counters, how many nodes of each kind and relationships of each type follow),
then the nodes kind by kind (:data:`~graph.io.format.KINDS`), then the relationships by the
kind of the node they start at. A cursor names the sequence the export began at, a stage (a
kind's nodes, or relationships) and the last record's key: a kind with a unique key per user
is read in that key's index order, the others and relationships in element id order. Each
page is cut at :data:`PAGE_BYTES` of JSON (at least one record), so no answer grows with what
a user stored.

The pages are read in separate transactions, so an export is one consistent picture only if
the user wrote nothing in between: each page reads the user's write sequence after its rows,
and a sequence other than the cursor's is a :class:`Conflict` (the CLI starts again). Every
write passes the gate, which numbers it, so none slips by unseen. A user being restored is
not exported.
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from graph.core.db import Database
from graph.core.errors import Conflict, Forbidden, InvalidInput
from graph.core.principals import Principal, Role
from graph.core.scopes import require_unscoped
from graph.io.format import FORMAT, KINDS, LEFT_OUT, TEMPORAL, TENANT_LEFT_OUT, encode

#: The JSON size at which a page is cut (the answer-size guard allows 512 KB).
PAGE_BYTES = 384 * 1024
#: Rows one query reads at most (a page may make several queries): the first query of a
#: page reads :data:`FIRST_ROWS`, the next as many as the last record's size says still fit.
ROWS = 1_000
FIRST_ROWS = 20
#: A cursor: the sequence, the stage, and the key of the last record of the stage read so
#: far (base64url: a node's id, slug or name, else an element id).
CURSOR = re.compile(r"^([0-9]{1,18})\.([0-9]{1,2})\.([0-9A-Za-z_-]{0,800})$")
_NODES, _RELATIONSHIPS = len(KINDS), 2 * len(KINDS)


@dataclass(frozen=True)
class Position:
    """Where an export stands: the user's sequence when it began, the stage (the nodes of
    kind ``i`` for ``i < len(KINDS)``, then the relationships from kind ``i - len(KINDS)``),
    and the last element id read in that stage."""

    seq: int
    stage: int
    after: str

    def text(self) -> str:
        """The cursor the next page is asked for with."""
        after = base64.urlsafe_b64encode(self.after.encode()).decode().rstrip("=")
        return f"{self.seq}.{self.stage}.{after}"

    @classmethod
    def parse(cls, cursor: str) -> Position:
        """A cursor an export issued (422 otherwise); any key it holds is a position."""
        found = CURSOR.match(cursor)
        if found is None or len(found[3]) % 4 == 1:
            raise InvalidInput("cursor is not one this API issued", field="cursor")
        after = base64.urlsafe_b64decode(found[3] + "=" * (-len(found[3]) % 4))
        return cls(int(found[1]), int(found[2]), after.decode(errors="replace"))


def person_only(principal: Principal, what: str) -> None:
    """Exporting or restoring a whole user is a person's action (403 for an agent's key), and
    an unscoped key's (403 for a scoped one: a whole user is outside any scope)."""
    require_unscoped(principal, f"{what} a whole user")
    if principal.role != Role.HUMAN:
        raise Forbidden(f"{what} a whole user is a person's action: use a person's key")


class UserDump:
    """Pages of ``GET /v1/export/all``."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def page(self, principal: Principal, cursor: str | None) -> tuple[list[dict[str, Any]], str | None]:
        """One page of the caller's whole user: its records and the cursor of the next."""
        person_only(principal, "exporting")
        user = principal.user_id
        position = Position.parse(cursor) if cursor is not None else None
        records: list[dict[str, Any]] = []
        size = 0
        if position is None:
            state = await self._state(user)
            records.append(await self._header(user, state))
            size = len(json.dumps(records[0]))
            position = Position(int(state["seq"]), 0, "")
        each = 0  # the size of the last record read: rows are read about as many as fit
        while position.stage < _RELATIONSHIPS and size < PAGE_BYTES:
            nodes = position.stage < _NODES
            want = min(ROWS, (PAGE_BYTES - size) // each + 1) if each else FIRST_ROWS
            rows = await self._rows(user, position, want)
            for row in rows:
                record = _record(row, position.stage)
                records.append(record)
                each = len(json.dumps(record, ensure_ascii=False))
                size += each
                position = Position(position.seq, position.stage, str(row["key"] if nodes else row["ref"]))
                if size >= PAGE_BYTES:
                    break
            else:
                if len(rows) < want:
                    position = Position(position.seq, position.stage + 1, "")
        state = await self._state(user)
        if int(state["seq"]) != position.seq:
            raise Conflict(
                f"the user's memory changed during the export (write {position.seq} then {state['seq']}): "
                "export again (the CLI does, up to three times)",
                field="cursor",
            )
        return records, position.text() if position.stage < _RELATIONSHIPS else None

    async def _state(self, user: str) -> dict[str, Any]:
        [state] = await self._db.read("queries/io/export_state", userId=user, temporal=list(TEMPORAL))
        if state["restoring"] is not None:
            raise Conflict(
                f"this user is being restored (restore {state['restoring']}); export once it has finished",
                field="restore",
            )
        return state

    async def _rows(self, user: str, position: Position, limit: int) -> list[dict[str, Any]]:
        nodes = position.stage < _NODES
        kind = KINDS[position.stage if nodes else position.stage - _NODES]
        name = "queries/io/user_nodes_page" if nodes else "queries/io/user_relationships_page"
        params = {"userId": user, "kind": kind, "after": position.after, "limit": limit}
        return await self._db.read(name, temporal=list(TEMPORAL), **params)

    async def _header(self, user: str, state: dict[str, Any]) -> dict[str, Any]:
        [counts] = await self._db.read("queries/io/user_counts", userId=user)
        tenant = [p for p in state["properties"] or [] if p["key"] not in TENANT_LEFT_OUT]
        return {
            "record": "export",
            "format": FORMAT,
            "userId": user,
            "exportedAt": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
            "seq": int(state["seq"]),
            "tenant": encode(tenant, "the Tenant node"),
            "nodes": {
                c["kind"]: int(c["nodes"]) for c in sorted(counts["kinds"], key=lambda c: str(c["kind"]))
            },
            "relationships": {
                t["type"]: int(t["relationships"])
                for t in sorted(counts["types"], key=lambda t: str(t["type"]))
            },
            "leftOut": sorted(LEFT_OUT),
        }


def _record(row: dict[str, Any], stage: int) -> dict[str, Any]:
    if stage < _NODES:
        where = f"node {row['ref']}"
        return {
            "record": "node",
            "ref": row["ref"],
            "labels": sorted(row["labels"], key=lambda label: (label not in KINDS, label)),
            "properties": encode(row["properties"], where),
        }
    return {
        "record": "relationship",
        "type": row["type"],
        "start": row["start"],
        "end": row["end"],
        "properties": encode(row["properties"], f"relationship {row['ref']}"),
    }
