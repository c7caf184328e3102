"""The shapes notes take in a real memory, generated around one subject's name: plain notes
(tagged, sourced, with a source reference), a restatement folded into a note, chains of
updates (a near twin with a new value supersedes the earlier one), conflicts closed into a
cycle, edges with notes, invalidated notes, decisions with the name in every field, patterns
and constraints, an agent's note a person corrected and the agent's proposal to change it
back, text a person deleted (and an agent's attempt to write it again), text that only the
journal still holds; and links between subjects. Each shape checks it took the form meant,
so a generator that stops making it fails here, not silently downstream."""

from __future__ import annotations

import random
from dataclasses import dataclass

from tests.integration.project.shapes import Subject, World

TOPICS = (
    "locker",
    "alarm",
    "gate",
    "safe",
    "bike shed",
    "server rack",
    "mailbox",
    "storage room",
    "garage",
    "wine cellar",
    "printer",
    "boat house",
    "tool cabinet",
    "archive room",
    "loading dock",
    "roof hatch",
    "piano room",
    "darkroom",
    "greenhouse",
    "cold store",
    "attic",
    "chapel",
    "kiln",
    "observatory",
)
PLACES = (
    "north building basement",
    "harbour office",
    "old mill",
    "east wing",
    "warehouse by the river",
    "third floor lab",
    "school annex",
    "ferry terminal",
    "city library",
    "sports hall",
    "botanical garden",
    "train depot",
    "fire station",
    "county museum",
    "ski lodge",
    "tram yard",
    "bakery",
    "print shop",
    "dairy farm",
    "lighthouse",
    "radio studio",
    "brewery",
    "ice rink",
    "town hall",
)
TOLD = (
    "the facilities team told us last week",
    "the caretaker wrote it in the log",
    "security said so at lunch",
    "the landlord confirmed it by mail",
    "the handbook says so",
    "the night guard said so",
)
NUMBERS = (4417, 9921, 1203, 5580, 7364, 2291, 8035, 6642)


@dataclass
class Words:
    """A subject's own vocabulary: topics and places no other subject's notes use, so no note of
    one subject is a near twin of another's."""

    topics: list[str]
    places: list[str]
    told: str
    #: Which wording the shapes take: a subject written twice (before and after a window's
    #: boundary) takes the other one the second time, or an agent's note would restate what a
    #: person deleted the first time (and be held for the person).
    second: bool = False


def vocabulary(rng: random.Random, count: int) -> list[Words]:
    """Disjoint words for ``count`` subjects (three topics and places each)."""
    topics, places = rng.sample(TOPICS, 3 * count), rng.sample(PLACES, 3 * count)
    return [
        Words(topics[3 * i : 3 * i + 3], places[3 * i : 3 * i + 3], rng.choice(TOLD)) for i in range(count)
    ]


#: Two codes of one chain are at cosine 0.944 or more (embedded alone, every script), two
#: budgets of one conflict at 0.90 or more (the update rule links them either way), notes of
#: two subjects at most 0.82.
def _code(s: Subject, w: Words, name: str, number: int) -> dict[str, object]:
    t, p = w.topics[0], w.places[0]
    return {
        "title": f"{t.capitalize()} code",
        "type": "fact",
        "content": f"The {t} code of {name} at the {p} is {number}, as {w.told}; "
        "the spare key hangs by the door.",
    }


async def chain(world: World, s: Subject, w: Words, length: int, start: int = 0) -> list[str]:
    """An agent's updates of one fact, each a near twin with a new value: each supersedes the
    one before (``start``: a chain carried on from notes made earlier)."""
    name, made = s.forms[0], list(world.of(s, f"chain {w.topics[0]}"))
    for k in range(start, start + length):
        body = _code(s, w, name, NUMBERS[k % len(NUMBERS)]) | {"id": s.id("chain")}
        answer = await world.send(world.agent, "POST", "/v1/knowledge", body)
        assert answer.get("supersedes") == (made[-1] if made else None), ("not a chain", body, answer)
        made.append(world.note(s, f"chain {w.topics[0]}", str(body["id"])))
        world.note(s, "chain", str(body["id"]))
    return made


async def conflicts(world: World, s: Subject, w: Words) -> list[str]:
    """Two budgets the update rule cannot tell apart (a vendor and an amount changed, no word
    of a change: conflictsWith), a third joined by a person's edges into a cycle of conflicts."""
    t, p, name = w.topics[1], w.places[1], s.say()
    made: list[str] = []
    for vendor, amount in (("Acme", 50), ("Initech", 80), ("Globex", 65)):
        body = {
            "id": s.id("conflict"),
            "title": f"{t.capitalize()} budget",
            "type": "fact",
            "content": f"The {t} budget for the team of {name} at the {p} is {amount},000 euros with "
            f"{vendor}, as {w.told}, with the whole group present.",
            "dedupe": vendor != "Globex",
        }
        answer = await world.send(world.agent, "POST", "/v1/knowledge", body)
        if vendor == "Initech":
            assert answer.get("conflictsWith") == made[0], ("no conflict", body, answer)
        made.append(world.note(s, "conflict", str(body["id"])))
    for a, b in ((made[1], made[2]), (made[2], made[0])):
        await world.send(
            world.person, "POST", f"/v1/knowledge/{a}/connections", {"type": "conflictsWith", "targetId": b}
        )
    return made


async def plain(world: World, s: Subject, w: Words, count: int) -> list[str]:
    """Notes of a person's and an agent's, the name in the title, the content, the source
    reference or only a tag's neighbour; some tagged with the subject's tag, some from docs."""
    made = []
    for k in range(count):
        where = s.rng.choice(("title", "content", "sourceRef", "both"))
        name = s.say()
        body = {
            "id": s.id("note"),
            "type": s.rng.choice(("fact", "concept", "procedure")),
            "dedupe": False,
            "title": f"{name} and the {w.places[2]}"
            if where in ("title", "both")
            else f"Visits to the {w.places[2]}",
            "content": (
                f"{name} visits the {w.places[2]} on {('Mondays', 'Thursdays', 'weekends')[k % 3]} "
                f"to check the {w.topics[2]} (visit {k})."
            )
            if where in ("content", "both")
            else f"The {w.topics[2]} at the {w.places[2]} is checked weekly ({k}).",
            "source": s.rng.choice(("docs", "inferred")) if k else "inferred",  # the first: tags alone
            "tags": [s.tag] if k == 0 or s.rng.random() < 0.5 else ["visits"],
        }
        if where == "sourceRef":
            body["sourceRef"] = f"notebook of {name}, page {k + 3}"
        author = world.person if k % 2 == 0 else world.agent
        await world.send(author, "POST", "/v1/knowledge", body)
        made.append(world.note(s, "note", str(body["id"])))
    return made


async def merged(world: World, s: Subject, w: Words) -> str:
    """A note that says nothing of the subject, and a restatement that names it folded into it:
    only the merged twin holds the name."""
    t, p = w.topics[2], w.places[1]
    body = {
        "id": s.id("merged"),
        "title": f"{t.capitalize()} permit",
        "type": "fact",
        "content": f"The permit for the {t} at the {p} is renewed every March by the facilities office, "
        "and the form sits in the blue folder at reception.",
    }
    await world.send(world.person, "POST", "/v1/knowledge", body)
    # Embedded alone, the twin is at cosine 0.954 or more from the note in every script and
    # spelling the generator makes (the dedupe threshold is 0.92): it folds in.
    twin = body | {"id": s.id("twin"), "content": str(body["content"])[:-1] + f", as {s.say()} said."}
    answer = await world.send(world.person, "POST", "/v1/knowledge", twin)
    assert answer.get("mergedInto") == body["id"], ("not merged", twin, answer)
    return world.note(s, "note", str(body["id"]))


async def edges(world: World, s: Subject, notes: list[str]) -> None:
    """Edges among the subject's notes, some with a note that names the subject."""
    for a, b in zip(notes, notes[1:], strict=False):
        edge: dict[str, object] = {"type": s.rng.choice(("relatedTo", "dependsOn")), "targetId": b}
        if s.rng.random() < 0.6:
            edge["note"] = f"{s.say()} linked these two"
        await world.send(
            s.rng.choice((world.person, world.agent)), "POST", f"/v1/knowledge/{a}/connections", edge
        )


async def invalidated(world: World, s: Subject, w: Words) -> list[str]:
    """A note whose invalidation's reason alone names the subject, and one that names it
    ended for a plain reason."""
    made = []
    for k, (text, reason) in enumerate(
        (
            (
                f"The {w.topics[0]} at the {w.places[2]} opens at seven.",
                f"{s.say()} changed the opening hours.",
            ),
            (f"{s.say()} runs the {w.topics[1]} tour on Fridays.", "The tour was cancelled."),
        )
    ):
        body = {
            "id": s.id("ended"),
            "title": f"Hours {k} of the {w.places[2]}",
            "content": text,
            "type": "fact",
            "dedupe": False,
        }
        await world.send(world.person, "POST", "/v1/knowledge", body)
        await world.send(world.person, "POST", f"/v1/knowledge/{body['id']}/invalidate", {"reason": reason})
        made.append(world.note(s, "note", str(body["id"])))
    return made


async def decisions(world: World, s: Subject, w: Words) -> list[str]:
    """A decision with the name in every field, one with it in its consequences only (which
    the first supersedes), a pattern and a constraint that name it."""
    first = {
        "id": s.id("adr"),
        "title": f"Move the {w.topics[1]} to the {w.places[0]}",
        "context": f"The old {w.topics[1]} is too small.",
        "decision": f"The {w.topics[1]} moves in May.",
        "consequences": [f"{s.say()} hands over the keys.", "The old room is emptied."],
    }
    every = {
        "id": s.id("adr"),
        "title": f"{s.say()} owns the {w.topics[1]}",
        "context": f"Since {s.say()} joined, the {w.topics[1]} had no owner.",
        "decision": f"{s.say()} owns the {w.topics[1]} at the {w.places[0]}.",
        "consequences": [f"Ask {s.say()} for access.", f"{s.say()} reviews it yearly."],
        "tags": ["ownership"],
    }
    for body in (first, every):
        await world.send(world.person, "POST", "/v1/decisions", body)
        world.note(s, "decision", str(body["id"]))
    await world.send(world.person, "POST", f"/v1/decisions/{first['id']}/supersede", {"byId": every["id"]})
    for path, what in (("/v1/patterns", "pattern"), ("/v1/constraints", "constraint")):
        body = {
            "id": s.id(what),
            "title": f"{what.capitalize()} of {s.say()}",
            "description": f"Every {w.topics[2]} request goes through {s.say()} first.",
        }
        await world.send(world.person, "POST", path, body)
        world.note(s, "decision", str(body["id"]))
    return [str(first["id"]), str(every["id"])]


async def corrected(world: World, s: Subject, w: Words) -> str:
    """An agent's note a person corrected (keeping the name, or taking it out), and the agent's
    write back: a proposal (202) about it."""
    keep = s.rng.random() < 0.5
    note_id = s.id("corrected")
    said = f"{s.say()} parks in bay {s.rng.randint(10, 99)} at the {w.places[1]}."
    if w.second:
        said = f"{s.say()} takes the {s.rng.randint(10, 99)} bus to the {w.places[1]} every weekday."
    body = {
        "id": note_id,
        "title": f"Getting to the {w.places[1]}",
        "content": said,
        "type": "fact",
        "dedupe": False,
    }
    await world.send(world.agent, "POST", "/v1/knowledge", body)
    fixed = f"{s.say()} comes by the visitors' entrance." if keep else "Nobody knows how they get there."
    await world.send(world.person, "PATCH", f"/v1/knowledge/{note_id}", {"content": fixed})
    answer = await world.send(world.agent, "PATCH", f"/v1/knowledge/{note_id}", {"content": said}, 202)
    assert answer["proposal"]["status"] == "pending", answer
    return world.note(s, "note", note_id)


async def deleted(world: World, s: Subject, w: Words) -> None:
    """Text a person deleted: their own note, and an agent's note (a correction that holds the
    agent off), which the agent then writes again (a proposal); and a note whose name a
    person's edit took out (only the journal holds it)."""
    own = {
        "id": s.id("gone"),
        "title": f"{s.say()}'s spare {w.topics[0]}",
        "type": "fact",
        "dedupe": False,
        "content": f"{s.say()} keeps a spare {w.topics[0]} key in the {w.places[2]}."
        if not w.second
        else f"{s.say()} borrowed the ladder from the {w.places[2]} and never gave it back.",
    }
    await world.send(world.person, "POST", "/v1/knowledge", own)
    await world.send(world.person, "DELETE", f"/v1/knowledge/{own['id']}", None, 204)
    world.note(s, "gone", str(own["id"]))
    theirs = {
        "id": s.id("gone"),
        "title": f"Badge of {s.forms[0]}" if not w.second else f"Cards {s.forms[0]} lost",
        "type": "fact",
        "content": f"The {w.places[0]} badge of {s.forms[0]} is kept at the front desk."
        if not w.second
        else f"{s.forms[0]} lost the card for the {w.topics[0]} twice this winter.",
    }
    await world.send(world.agent, "POST", "/v1/knowledge", theirs)
    await world.send(world.person, "DELETE", f"/v1/knowledge/{theirs['id']}", None, 204)
    world.note(s, "gone", str(theirs["id"]))
    world.held[s.label] = theirs
    again = await world.send(world.agent, "POST", "/v1/knowledge", theirs | {"id": s.id("again")}, 202)
    assert again["proposal"]["status"] == "pending", again
    edited = {
        "id": s.id("edited"),
        "title": f"Keys of the {w.places[1]}",
        "type": "fact",
        "dedupe": False,
        "content": f"{s.say()} holds the keys of the {w.places[1]}.",
    }
    await world.send(world.person, "POST", "/v1/knowledge", edited)
    await world.send(
        world.person, "PATCH", f"/v1/knowledge/{edited['id']}", {"content": "The porter holds them."}
    )
    world.note(s, "history", str(edited["id"]))


async def knowledge(world: World, s: Subject, w: Words, chain_length: int = 3) -> list[str]:
    """Every shape of notes for one subject; the ids of its notes that link well."""
    notes = await plain(world, s, w, s.rng.randint(2, 4))
    notes.append(await merged(world, s, w))
    notes += (await chain(world, s, w, chain_length))[-1:]
    notes += await conflicts(world, s, w)
    notes += await invalidated(world, s, w)
    notes.append(await corrected(world, s, w))
    s.rng.shuffle(notes)
    await edges(world, s, notes)
    await decisions(world, s, w)
    await deleted(world, s, w)
    return notes


async def across(world: World, s: Subject, kept: Subject, theirs: list[str], ours: list[str]) -> None:
    """Links between a subject and a kept one: a note of ours supersedes one of theirs, another
    conflicts with one, and a new note of theirs is linked to theirs by an edge whose note
    names our subject."""
    a, b = s.rng.sample(theirs, 2)
    await world.send(
        world.person, "POST", f"/v1/knowledge/{ours[0]}/connections", {"type": "supersedes", "targetId": a}
    )
    await world.send(
        world.person, "POST", f"/v1/knowledge/{ours[1]}/connections", {"type": "conflictsWith", "targetId": b}
    )
    c = {
        "id": kept.id("told"),
        "title": f"What {kept.say()} was told",
        "type": "fact",
        "dedupe": False,
        "content": f"{kept.say()} heard about the move at the staff meeting ({s.label}).",
    }
    await world.send(world.agent, "POST", "/v1/knowledge", c)
    world.note(kept, "note", str(c["id"]))
    edge = {"type": "relatedTo", "targetId": c["id"], "note": f"{s.say()} told {kept.say()} about it"}
    await world.send(world.agent, "POST", f"/v1/knowledge/{b}/connections", edge)
