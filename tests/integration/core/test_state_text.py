"""Stored states hold text as it was written (graph/core/states.py): a person's accented
note, PATCHed, leaves "Émile" literally in its journal entries, and so do a correction and
a proposal; states written the old way (ASCII escapes) read back the same through the API,
and are rewritten once by ``migrate``, user by user, without changing what anyone reads."""

from __future__ import annotations

import json
from typing import Any

from graph.core.db import Database
from graph.core.embeddings import embedder_dimension
from graph.core.principals import Role
from graph.core.schema import LITERAL_STATES, migrate, restate_user
from graph.core.settings import Settings
from tests.integration.conftest import Caller, MakeCaller, correct_and_propose, inspect

CREATED = "Émile Dubreuil earns 91k per year."
PATCHED = "Émile Dubreuil earns 95k per year, from Łódź to 東京 🚀."
AGENT_TEXT = "Øystein Ødegård runs the Иван project."

#: Every stored state of a user: (label, id, property, text, element id).
STATES = """
CALL () {
  MATCH (n:Mutation {userId: $u}) RETURN n
  UNION MATCH (n:Correction {userId: $u}) RETURN n
  UNION MATCH (n:Proposal {userId: $u}) RETURN n
}
UNWIND [k IN ['before', 'after', 'payload'] WHERE n[k] IS NOT NULL] AS key
RETURN labels(n)[0] AS label, n.id AS id, key, n[key] AS text, elementId(n) AS ref ORDER BY label, id, key
"""


async def _plant(person: Caller, agent: Caller) -> None:
    """The person's note, created and PATCHed; an agent's note the person corrects and the
    agent tries to change back (a correction and a proposal)."""
    body = {"id": "emile", "title": "Émile's pay", "content": CREATED, "type": "fact"}
    assert (await person.http.post("/v1/knowledge", json=body)).status_code == 201
    patched = await person.http.patch("/v1/knowledge/emile", json={"content": PATCHED})
    assert patched.status_code == 200, patched.text
    await correct_and_propose(person, agent, "oystein", AGENT_TEXT)


async def _reads(person: Caller) -> dict[str, Any]:
    """What the person reads of those states through the API."""
    journal = (await person.http.get("/v1/mutations", params={"limit": 50})).json()["items"]
    [created] = [m for m in journal if m["op"] == "note.create" and m["targetId"] == "emile"]
    known = await person.http.get("/v1/knowledge/emile", params={"asKnownAt": created["at"]})
    assert known.status_code == 200, known.text
    return {
        "journal": journal,
        "knownAt": known.json(),
        "corrections": (await person.http.get("/v1/corrections")).json()["items"],
        "proposals": (await person.http.get("/v1/proposals")).json()["items"],
    }


async def test_accented_text_is_stored_as_written(make_caller: MakeCaller, db: Database) -> None:
    person = await make_caller()
    agent = await make_caller(Role.AGENT, agent_id="scribe", user_id=person.user_id)
    await _plant(person, agent)

    rows = await inspect(db, STATES, u=person.user_id)
    mutations = await inspect(
        db, "MATCH (m:Mutation {userId: $u, targetId: 'emile'}) RETURN m.op AS op, m.before AS before, "
        "m.after AS after", u=person.user_id,
    )  # fmt: skip
    [update] = [m for m in mutations if m["op"] == "note.update"]
    [create] = [m for m in mutations if m["op"] == "note.create"]
    assert CREATED in create["after"] and "Émile's pay" in create["after"]
    assert CREATED in update["before"] and PATCHED in update["after"]
    assert any(AGENT_TEXT in r["text"] for r in rows if (r["label"], r["key"]) == ("Correction", "before"))
    assert any(AGENT_TEXT in r["text"] for r in rows if (r["label"], r["key"]) == ("Proposal", "payload"))
    assert not any("\\u" in r["text"] for r in rows), [r["text"] for r in rows if "\\u" in r["text"]]


async def test_states_written_the_old_way_read_the_same_and_are_rewritten(
    make_caller: MakeCaller, db: Database
) -> None:
    person = await make_caller()
    agent = await make_caller(Role.AGENT, agent_id="scribe", user_id=person.user_id)
    await _plant(person, agent)
    seen = await _reads(person)

    # Every state as this service stored it before: ASCII-escaped JSON.
    rows = await inspect(db, STATES, u=person.user_id)
    old = [r | {"old": json.dumps(json.loads(r["text"]), sort_keys=True)} for r in rows]
    assert (
        sum(r["old"] != r["text"] for r in old) >= 6
    )  # the note's 3 states, the correction's 2, the proposal
    await db.driver.execute_query(
        "UNWIND $rows AS row MATCH (n) WHERE elementId(n) = row.ref SET n[row.key] = row.old",
        {"rows": old},
        database_=db.database,
    )
    assert any("\\u00c9mile" in r["text"] for r in await inspect(db, STATES, u=person.user_id))
    assert await _reads(person) == seen

    assert await restate_user(db, person.user_id, batch=2) == sum(r["old"] != r["text"] for r in old)
    assert await inspect(db, STATES, u=person.user_id) == rows  # as the service writes them now
    assert await _reads(person) == seen
    assert await restate_user(db, person.user_id) == 0

    # The agent asking again for the change it proposed gets that proposal, not a second one.
    again = await agent.http.patch("/v1/knowledge/oystein", json={"content": AGENT_TEXT})
    assert again.status_code == 202 and again.json()["proposal"]["id"] == seen["proposals"][0]["id"]


async def test_migrate_rewrites_old_states_once(private_db: Database, private_settings: Settings) -> None:
    """On a database of its own: a journal entry, a correction and a proposal written before
    (ASCII escapes) are rewritten by migrate; a lone surrogate stays escaped, a backslash-u
    typed in a text stays as typed; migrate marks the step done and does not walk again."""
    states = {
        "m1": {"before": {"content": "Émile"}, "after": {"content": "Émile Dubreuil 東京 🚀"}},
        "m2": {"before": None, "after": {"content": "half \ud83d of a pair, and C:\\users\\u00e9"}},
    }
    params = {
        "mutations": [
            {"id": k, **{p: json.dumps(v, sort_keys=True) if v is not None else None for p, v in s.items()}}
            for k, s in states.items()
        ],
        "correction": json.dumps({"content": "Øystein"}),
        "payload": json.dumps({"patch": {"title": "Иван"}}),
    }
    await private_db.driver.execute_query(
        "MATCH (d:Migration) DETACH DELETE d "
        "WITH count(*) AS gone UNWIND $mutations AS m "
        "MERGE (n:Mutation {userId: 'old-states', id: m.id}) SET n.before = m.before, n.after = m.after "
        "WITH count(*) AS made "
        "MERGE (c:Correction {userId: 'old-states', id: 'c1'}) "
        "SET c.before = $correction, c.after = $correction "
        "MERGE (p:Proposal {userId: 'old-states', id: 'p1'}) SET p.payload = $payload",
        params,
        database_=private_db.database,
    )
    await migrate(private_db, embedder_dimension(private_settings))

    records, _, _ = await private_db.driver.execute_query(
        STATES, {"u": "old-states"}, database_=private_db.database
    )
    stored = {(r["label"], r["id"], r["key"]): r["text"] for r in records}
    assert stored[("Mutation", "m1", "after")] == '{"content": "Émile Dubreuil 東京 🚀"}'
    assert (
        stored[("Mutation", "m2", "after")]
        == '{"content": "half \\ud83d of a pair, and C:\\\\users\\\\u00e9"}'
    )
    assert stored[("Correction", "c1", "before")] == '{"content": "Øystein"}'
    assert stored[("Proposal", "p1", "payload")] == '{"patch": {"title": "Иван"}}'
    assert json.loads(stored[("Mutation", "m2", "after")]) == states["m2"]["after"]
    marks, _, _ = await private_db.driver.execute_query(
        "MATCH (d:Migration) RETURN d.name AS name", database_=private_db.database
    )
    assert [r["name"] for r in marks] == [LITERAL_STATES]

    # Done once: a start-up reads the mark only, and leaves even a state written the old way since.
    await private_db.driver.execute_query(
        "MATCH (n:Mutation {userId: 'old-states', id: 'm1'}) SET n.before = $old",
        {"old": json.dumps({"content": "Émile"})},
        database_=private_db.database,
    )
    await migrate(private_db, embedder_dimension(private_settings))
    [row], _, _ = await private_db.driver.execute_query(
        "MATCH (n:Mutation {userId: 'old-states', id: 'm1'}) RETURN n.before AS before",
        database_=private_db.database,
    )
    assert row["before"] == '{"content": "\\u00c9mile"}'
