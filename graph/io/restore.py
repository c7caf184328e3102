"""A whole user, written back from an export (``/v1/restore``): into an empty user only, in
batches, each a transaction through the user's write gate, and journaled as one entry.

* **Begin** checks the file's header (its format: 422 for another) and that the user holds
  nothing (409 naming what it holds), then marks the user as being restored: from then on
  the write gate refuses every other write of theirs (409), until the restore finishes or
  is discarded; an export refuses them too.
* **Batches** carry the file's records in order, each with its offset (its first record's
  place in the file). A batch is written with the count of records written so far in one
  transaction, so a batch sent again is not written twice, and one out of order is refused.
  Labels and types are checked against the format's allow-lists; every node is made for
  the restoring user, whatever the file says (``userId``, ``tenantKey``); a ``targetId``
  equal to the exported user's id (a profile's journal entries name it) becomes the
  restoring one's; a stored state an older export kept with ASCII escapes is written as
  :mod:`graph.core.states` writes it.
* **Finish** checks that every record was written and that the user now holds exactly the
  header's count of each kind and type, takes the restore's marks off the nodes (batches
  again), then, in its last transaction, gives the user the exported Tenant's counters and
  the journal's next number, and journals the restore itself as one ``user.restore`` entry
  numbered after the restored journal (the exported sequence + 1).
* **Discard** deletes what an unfinished restore wrote (batches) and lifts the mark.

A restore killed at any point leaves the user marked: the gate refuses other writes with a
message naming the way out (``ctxnet import FILE --resume`` or ``--discard``), so nothing is
ever half-written without saying so.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from graph.core import journal
from graph.core.db import Database
from graph.core.errors import Conflict, InvalidInput, NotFound
from graph.core.gate import Gated, WriteGate
from graph.core.principals import Principal
from graph.core.states import STATE_PROPERTIES, restate
from graph.core.tenancy import tenant_key
from graph.io.dump import person_only
from graph.io.format import (
    FORMAT,
    KINDS,
    RELATIONSHIPS,
    SUBLABELS,
    TENANT_LEFT_OUT,
    FormatError,
    decode,
    rewrite_owner,
)
from graph.knowledge.search import TenantSizes

#: Nodes whose marks one transaction takes off, or a discard deletes.
BATCH = 5_000


class UserRestore:
    """Begin, batches, finish and discard of ``/v1/restore``."""

    def __init__(self, db: Database, sizes: TenantSizes) -> None:
        self._db = db
        self._gate = WriteGate(db)
        self._sizes = sizes

    async def state(self, principal: Principal) -> dict[str, Any]:
        """The restore under way for the caller's user: ``{restoring, ...}``."""
        person_only(principal, "restoring")
        [row] = await self._db.read("queries/io/restore_state", userId=principal.user_id)
        if row["restoreId"] is None:
            return {"restoring": False}
        return {
            "restoring": True, "restoreId": row["restoreId"], "from": row["from"], "sha256": row["sha256"],
            "records": row["records"], "recordsDone": row["done"], "startedAt": row["startedAt"],
        }  # fmt: skip

    async def begin(
        self, principal: Principal, header: dict[str, Any], sha256: str, records: int
    ) -> dict[str, Any]:
        """Mark the caller's empty user as being restored from the export ``header`` describes."""
        person_only(principal, "restoring")
        if header.get("format") != FORMAT:
            raise InvalidInput(
                f"this file is in format {header.get('format')}; this server restores format {FORMAT} only",
                field="header.format",
            )
        restore_id = uuid.uuid4().hex

        async def work(gated: Gated) -> None:
            [state] = await gated.run("queries/io/restore_state")
            if state["restoreId"] is not None:
                raise Conflict(
                    f"a restore of this user is under way (restore {state['restoreId']}, {state['done']} of "
                    f"{state['records']} records written): `ctxnet import FILE --resume` finishes it, "
                    "`ctxnet import FILE --discard` removes what it wrote",
                    field="restore",
                )
            [counts] = await gated.run("queries/io/user_counts")
            held = {c["kind"]: int(c["nodes"]) for c in counts["kinds"] if c["nodes"]}
            if held:
                what = ", ".join(f"{n} {kind}" for kind, n in sorted(held.items()))
                raise Conflict(
                    f"a user is restored only into an empty user, and {gated.user_id} holds {what}: use "
                    "a key of a user who holds nothing",
                    field="userId",
                )
            await gated.run(
                "queries/io/restore_begin", restoreId=restore_id, sha256=sha256, records=records,
                header=json.dumps(header, sort_keys=True), **{"from": header.get("userId")},
            )  # fmt: skip

        await self._gate.write(principal.user_id, work)
        return {"restoreId": restore_id, "userId": principal.user_id, "from": header.get("userId"),
                "records": records, "recordsDone": 0}  # fmt: skip

    async def batch(
        self, principal: Principal, restore_id: str, offset: int, records: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """Write ``records`` (the file's from ``offset`` on); ``{recordsDone, rewritten}``."""
        person_only(principal, "restoring")
        state = await self._under_way(principal, restore_id)
        nodes, relationships, rewritten = checked_batch(records, str(state["from"] or ""), principal.user_id)

        async def work(gated: Gated) -> int:
            [now] = await gated.run("queries/io/restore_state")
            done = int(now["done"] or 0)
            if offset + len(records) <= done:
                return done  # sent again after it was written: nothing to do
            if offset != done:
                raise Conflict(
                    f"this restore has written {done} records; the next batch starts there, not at {offset}",
                    field="offset",
                )
            if offset + len(records) > int(now["records"]):
                raise InvalidInput(f"the file holds {now['records']} records, not more", field="records")
            if nodes:
                [row] = await gated.run(
                    "queries/io/restore_nodes", nodes=nodes, tenantKey=tenant_key(gated.user_id)
                )
            if relationships:
                [row] = await gated.run("queries/io/restore_relationships", relationships=relationships)
                if int(row["written"]) != len(relationships):
                    raise InvalidInput(
                        "a relationship of this batch names a node the restore has not written (its start or "
                        "end ref): nodes come before the relationships between them",
                        field="records",
                    )
            await gated.run("queries/io/restore_progress", restoreId=restore_id, done=offset + len(records))
            return offset + len(records)

        done = await self._gate.write(principal.user_id, work, restoring=restore_id)
        return {"restoreId": restore_id, "recordsDone": done, "rewritten": rewritten}

    async def finish(self, principal: Principal, restore_id: str) -> dict[str, Any]:
        """End the restore (see the module): its journal entry and the user's counts."""
        person_only(principal, "restoring")
        state = await self._under_way(principal, restore_id)
        header: dict[str, Any] = json.loads(state["header"])
        if int(state["done"] or 0) != int(state["records"]):
            raise Conflict(
                f"this restore has written {state['done']} of the file's {state['records']} records: send "
                "the rest first (`ctxnet import FILE --resume`)",
                field="restore",
            )
        [counts] = await self._db.read("queries/io/user_counts", userId=principal.user_id)
        nodes = {c["kind"]: int(c["nodes"]) for c in counts["kinds"] if c["nodes"]}
        types = {c["type"]: int(c["relationships"]) for c in counts["types"] if c["relationships"]}
        wanted = {k: int(v) for k, v in (header.get("nodes") or {}).items() if v}
        wanted_types = {k: int(v) for k, v in (header.get("relationships") or {}).items() if v}
        if nodes != wanted or types != wanted_types:
            raise Conflict(
                f"the restore wrote {nodes} nodes and {types} relationships where the file's header states "
                f"{wanted} and {wanted_types}: discard it (`ctxnet import FILE --discard`)",
                field="header",
            )
        while True:

            async def unmark(gated: Gated) -> int:
                [row] = await gated.run("queries/io/restore_unmark", limit=BATCH)
                return int(row["unmarked"])

            if await self._gate.write(principal.user_id, unmark, restoring=restore_id) < BATCH:
                break
        # The exported counters, but none of the marks the gate and a restore keep for themselves,
        # and the note count as counted (the gate trusts it).
        tenant = {k: v for k, v in (header.get("tenant") or {}).items() if k not in TENANT_LEFT_OUT}
        seq = int(header.get("seq") or 0) + 1
        try:
            plain, temporal, _ = decode(tenant, "header.tenant")
        except FormatError as exc:
            raise InvalidInput(str(exc), field="header.tenant") from None
        plain |= {"notes": nodes.get("Knowledge", 0)}

        async def end(gated: Gated) -> str:
            gated.seq, gated.journaled = seq, 0  # the restore's entry follows the restored journal
            mutation_id = await journal.record(
                gated, principal, op="user.restore", target_type="User", target_id=gated.user_id, before=None,
                after={"from": state["from"], "format": FORMAT, "exportedAt": header.get("exportedAt"),
                       "sha256": state["sha256"], "nodes": nodes, "relationships": types},
            )  # fmt: skip
            await gated.run(
                "queries/io/restore_finish",
                restoreId=restore_id,
                tenant=plain | {"seq": seq},
                temporal=temporal,
            )
            return mutation_id

        mutation_id = await self._gate.write(principal.user_id, end, restoring=restore_id)
        self._sizes.forget(principal.user_id)
        return {
            "restoreId": restore_id, "userId": principal.user_id, "from": state["from"], "seq": seq,
            "mutationId": mutation_id, "nodes": nodes, "relationships": types,
        }  # fmt: skip

    async def discard(self, principal: Principal) -> dict[str, Any]:
        """Delete what the caller's unfinished restore wrote and lift its mark."""
        person_only(principal, "restoring")
        [state] = await self._db.read("queries/io/restore_state", userId=principal.user_id)
        restore_id = state["restoreId"]
        if restore_id is None:
            raise NotFound("no restore of this user is under way", field="restore")
        deleted = 0
        while True:

            async def delete(gated: Gated) -> int:
                [row] = await gated.run("queries/io/restore_discard", limit=BATCH)
                if int(row["deleted"]) < BATCH:
                    await gated.run("queries/io/restore_clear", restoreId=restore_id)
                return int(row["deleted"])

            batch = await self._gate.write(principal.user_id, delete, restoring=restore_id)
            deleted += batch
            if batch < BATCH:
                break
        self._sizes.forget(principal.user_id)
        return {"restoreId": restore_id, "discarded": deleted}

    async def _under_way(self, principal: Principal, restore_id: str) -> dict[str, Any]:
        [state] = await self._db.read("queries/io/restore_state", userId=principal.user_id)
        if state["restoreId"] is None:
            raise NotFound("no restore of this user is under way", field="restoreId")
        if state["restoreId"] != restore_id:
            raise Conflict(f"the restore under way is {state['restoreId']}, not this one", field="restoreId")
        return state


def checked_batch(
    records: list[dict[str, Any]], source: str, target: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int]:
    """A batch's records as the restore statements take them; 422 naming the record at fault
    (the import runs it on every record before sending any)."""
    nodes: list[dict[str, Any]] = []
    relationships: list[dict[str, Any]] = []
    rewritten = 0
    for i, record in enumerate(records):
        where = f"records.{i}"
        properties = dict(record.get("properties") or {})
        rewritten += rewrite_owner(properties, source, target) if source else 0
        try:
            plain, temporal, vectors = decode(properties, where)
        except FormatError as exc:
            raise InvalidInput(str(exc), field=f"{where}.properties") from None
        if record.get("record") == "node":
            labels = list(record.get("labels") or [])
            kinds = [label for label in labels if label in KINDS]
            strange = [label for label in labels if label not in KINDS and label not in SUBLABELS]
            if len(kinds) != 1 or strange:
                raise InvalidInput(
                    f"a node has exactly one kind of {list(KINDS)} and perhaps some of {sorted(SUBLABELS)}; "
                    f"these labels are not that: {labels}",
                    field=f"{where}.labels",
                )
            if relationships:
                raise InvalidInput("nodes come before every relationship", field=f"{where}.record")
            for key in STATE_PROPERTIES.get(kinds[0], ()):  # an older export's states: ASCII-escaped
                if isinstance(plain.get(key), str):
                    plain[key] = restate(plain[key])
            nodes.append({"ref": record.get("ref"), "labels": labels, "plain": plain, "temporal": temporal,
                          "vectors": vectors, "tenantKey": "tenantKey" in properties})  # fmt: skip
        else:
            if vectors:
                raise InvalidInput("a relationship holds no vector", field=f"{where}.properties")
            if record.get("type") not in RELATIONSHIPS:
                raise InvalidInput(
                    f"{record.get('type')!r} is not a relationship type of this format", field=f"{where}.type"
                )
            ends = {"start": record.get("start"), "end": record.get("end")}
            relationships.append({"type": record["type"], "plain": plain, "temporal": temporal} | ends)
    return nodes, relationships, rewritten
