"""The price of telling updates from siblings on the write path (issue 47): create, batch
create and a vault import with the update rule (HEAD) beside the code of before it
(:data:`TODAY`, c5abbd3: one twin at the dedupe threshold), in one run.

One private Neo4j and two API processes, each from a git worktree of its commit (the same
``.venv``), each with users of its own. The notes resemble each other as an agent's atomic
notes do: templates whose subjects are ids, ordinals, people, services and periods ("Replica
3 of the orders database lives in rack 12.", "Invoice 4410 was paid on March 3.", "Dana's
standup is at 9:30 every weekday.", "Dana moved the daily standup to 10:15."), so a new one
meets siblings, updates, restatements and near misses; the fitted half of the update pairs
(``bench/data/update_pairs_fit.json``: old notes stored, new ones written); and unrelated
notes, turns of LongMemEval's oracle split (as :mod:`bench.retrieval` loads them) cut at
:data:`TURN_WORDS` words.

For each size of the user written to (2,000 and 20,000 notes stored, vectors from the
service's own embedder, dedupe off) and each mode (``vectors``: the caller supplies the
vectors, so embedding hides nothing; ``text``: the service embeds), each side gets a user of
its own loaded with the same notes, then the same writes with dedupe on, the sides taking
turns call by call (the order rotating): single creates (p50/p95 of the round trip), batches
of 100 and of 1,000 (wall time per note). Then the import of a Markdown vault of
:attr:`Size.vault` notes (``ctxnet import``, the service embeds) into a fresh user, the sides
in the order today, new, new, today. Each measured block also reads each API's /metrics
before and after, so the time is split into the candidate query (``twins_*``), the read of
the candidates (``notes_by_ids``), the other statements, the embedder and the rest (the
API's Python: HTTP, validation, the rule).

``python -m bench.update_cost [quick]`` (about 31 minutes on 2 cores; quick: small, not saved)
prints the tables and saves ``bench/results/update_cost.json``.
"""

from __future__ import annotations

import asyncio
import io
import json
import random
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import httpx

from bench.common import machine, percentile, private_neo4j, save
from bench.corpus import rotated, settle
from bench.imports import keys
from bench.integrity import checkout
from bench.longmemeval import load_oracle
from bench.retrieval import title as turn_title
from ctxnet.client import AsyncClient
from ctxnet.io.importer import run_import
from graph.core.embeddings import LocalEmbedder
from graph.core.settings import Settings
from tests.support.servers import ApiProcess

#: The commit before the update rule (828940e): the code of "today".
TODAY = "c5abbd3"
SIDES = ("today", "new")
TURN_WORDS = 60
ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Size:
    """What each side writes."""

    users: tuple[int, ...] = (2_000, 20_000)
    singles: int = 100
    batches_100: int = 6
    batches_1000: int = 2
    vault: int = 10_000
    imports: int = 2  # per side


FULL = Size()
QUICK = Size(users=(500,), singles=20, batches_100=2, batches_1000=1, vault=500, imports=1)


def _words(text: str) -> list[str]:
    return text.split()


PEOPLE = _words(
    "Dana Marco Priya Leo Mia Omar Sven Aiko Lucia Ravi Chen Nora Tariq Elena Jonas Fatima Hugo Ines "
    "Kofi Lena Mateo Noor Pavel Rosa Sami Tomas Uma Viktor Wen Yusuf Zoe Ada Bruno Clara Diego Emil"
)
CHOICES: dict[str, list[str]] = {
    "p": PEOPLE,
    "db": _words("orders billing users inventory search analytics payments catalog"),
    "svc": _words("auth billing gateway search notification export ingest reporting scheduler media"),
    "team": _words("platform mobile data growth infra payments design support"),
    "city": _words("Berlin Lisbon Toronto Austin Osaka Nairobi Dublin Warsaw Sydney Madrid"),
    "car": ["Honda Civic", "Tesla Model 3", "Toyota Corolla", "Ford Focus", "VW Golf", "Kia Niro"],
    "os": ["Ubuntu", "Debian", "Rocky Linux", "Alpine"],
    "ver": ["20.04", "22.04", "24.04", "11", "12", "9.3", "3.19"],
    "host": ["web", "db", "cache", "queue", "worker"],
    "thing": ["color", "dessert", "band", "board game"],
    "fav": ["green", "navy blue", "tiramisu", "cheesecake", "Radiohead", "Daft Punk", "Catan", "Azul"],
    "month": _words("January February March April May June July August September October November December"),
    "weekday": _words("Monday Tuesday Wednesday Thursday Friday"),
    "q": ["Q1", "Q2", "Q3", "Q4"],
    "n": [str(i) for i in range(1, 7)],
    "r": [str(i) for i in range(1, 41)],
    "id": [str(i) for i in range(2000, 10000)],
    "d4": [f"{i:04d}" for i in range(100, 10000, 7)],
    "port": [str(p) for p in range(3000, 9000, 37)],
    "year": [str(y) for y in range(2010, 2025)],
    "day": [str(d) for d in range(1, 29)],
    "k": [str(k) for k in range(10, 500, 5)],
    "time": [f"{h}:{m:02d}" for h in range(7, 12) for m in (0, 15, 30, 45)],
}
#: (title, wordings): each wording states the same property of the same subject.
TEMPLATES: list[tuple[str, list[str]]] = [
    ("Replica {n} of the {db} database", ["Replica {n} of the {db} database lives in rack {r}.",
                                          "Replica {n} of the {db} database now sits in rack {r}."]),
    ("Invoice {id}", ["Invoice {id} was paid on {month} {day}.",
                      "Invoice {id} was settled on {month} {day}."]),
    ("{p}'s standup", ["{p}'s standup is at {time} every weekday.",
                       "{p} moved the daily standup to {time}."]),
    ("{p}'s phone", ["{p}'s phone number is 555-{d4}.", "{p} has a new number: 555-{d4}."]),
    ("{svc} port", ["The {svc} service listens on port {port}.",
                    "The {svc} service now runs on port {port}."]),
    ("{p}'s car", ["{p} drives a {year} {car}.", "{p} sold the old car and now drives a {car}."]),
    ("{team} sprint {n}", ["The {team} team's sprint {n} ends on {month} {day}."]),
    ("Server {host}-{r}", ["Server {host}-{r} runs {os} {ver}.",
                           "Server {host}-{r} was upgraded to {os} {ver}."]),
    ("{city} office", ["The {city} office opens at {time} on weekdays."]),
    ("Order {id}", ["Order {id} ships to {city} on {weekday}."]),
    ("{team} budget {q}", ["The {team} team's {q} budget is ${k}k."]),
    ("{p}'s favorite {thing}", ["{p}'s favorite {thing} is {fav}."]),
]  # fmt: skip

Note = tuple[str, str]  # title, content
#: Where a write's time goes (ms per note), from each API's /metrics.
PARTS = ("twins_query", "notes_by_ids", "other_cypher", "embedder", "rest", "wall")


class Notes:
    """Where the notes come from: templates, the fitted update pairs, LongMemEval turns."""

    def __init__(self) -> None:
        pairs = json.loads((ROOT / "bench/data/update_pairs_fit.json").read_text())["pairs"]
        self.old: list[Note] = [(p["old"]["title"], p["old"]["content"]) for p in pairs]
        self.new: list[Note] = [(p["new"]["title"], p["new"]["content"]) for p in pairs]
        turns, _ = load_oracle()
        texts = sorted({" ".join(t.text.split()[:TURN_WORDS]) for t in turns if len(t.text.split()) >= 8})
        random.Random(3).shuffle(texts)
        self.turns: list[Note] = [(turn_title(t), t) for t in texts]
        self._next_turn = 0

    def take_turns(self, count: int) -> list[Note]:
        """``count`` turns no earlier call took."""
        taken = self.turns[self._next_turn : self._next_turn + count]
        self._next_turn += count
        return taken

    @staticmethod
    def templated(rng: random.Random, count: int) -> list[Note]:
        out = []
        for _ in range(count):
            title, wordings = rng.choice(TEMPLATES)
            fields = {k: rng.choice(v) for k, v in CHOICES.items()}
            out.append((title.format(**fields), rng.choice(wordings).format(**fields)))
        return out

    def base(self, count: int, seed: int) -> list[Note]:
        """What a user holds before the writes: every old note of the pairs, 15 % turns, the
        rest templated."""
        rng = random.Random(seed)
        turns = self.take_turns(count * 15 // 100)
        notes = self.old + turns + self.templated(rng, count - len(self.old) - len(turns))
        rng.shuffle(notes)
        return notes

    def stream(self, count: int, seed: int) -> list[Note]:
        """What is written: 10 % new notes of the pairs, 15 % turns, 75 % templated."""
        rng = random.Random(seed)
        pairs = rng.sample(self.new, min(len(self.new), count // 10))
        turns = self.take_turns(count * 15 // 100)
        notes = pairs + turns + self.templated(rng, count - len(pairs) - len(turns))
        rng.shuffle(notes)
        return notes


def item(note: Note, vector: list[float] | None, dedupe: bool = True) -> dict[str, Any]:
    """A note as the API takes it."""
    body: dict[str, Any] = {"title": note[0], "content": note[1], "type": "fact", "dedupe": dedupe}
    if vector is not None:
        body["embedding"] = vector
    return body


def metric_sums(base_url: str) -> dict[str, float]:
    """Seconds an API spent so far in each Cypher statement and in the embedder (/metrics)."""
    sums: dict[str, float] = {}
    for line in httpx.get(f"{base_url}/metrics", timeout=30).text.splitlines():
        if line.startswith("ctxnet_neo4j_query_duration_seconds_sum"):
            name = line.split('query="', 1)[1].split('"', 1)[0]
            sums[name] = sums.get(name, 0.0) + float(line.rsplit(" ", 1)[1])
        elif line.startswith("ctxnet_embedder_duration_seconds_sum"):
            sums["embedder"] = sums.get("embedder", 0.0) + float(line.rsplit(" ", 1)[1])
    return sums


class Side:
    """One API process (one commit): its users' HTTP clients and where its time went."""

    def __init__(self, name: str, api: ApiProcess) -> None:
        self.name, self.api = name, api
        self.clients: dict[str, httpx.Client] = {}
        self.split: dict[str, dict[str, float]] = {}
        self.outcomes: dict[str, dict[str, int]] = {}

    def client(self, user: str, secret: str) -> httpx.Client:
        self.clients[user] = httpx.Client(
            base_url=self.api.base_url, headers={"Authorization": f"Bearer {secret}"}, timeout=900
        )
        return self.clients[user]

    def post(self, user: str, path: str, body: bytes, stage: str | None) -> float:
        """POST a pre-encoded body; the seconds it took (and, for a ``stage``, what /metrics saw
        and what became of the notes)."""
        before = metric_sums(self.api.base_url) if stage else {}
        t0 = time.perf_counter()
        answer = self.clients[user].post(path, content=body, headers={"Content-Type": "application/json"})
        spent = time.perf_counter() - t0
        answer.raise_for_status()
        if stage:
            after = metric_sums(self.api.base_url)
            split = self.split.setdefault(stage, {"wall": 0.0})
            split["wall"] += spent
            for name, seconds in after.items():
                split[name] = split.get(name, 0.0) + seconds - before.get(name, 0.0)
            tally = self.outcomes.setdefault(stage, {})
            data = answer.json()
            for result in data.get("results", [data]):
                kind = result.get("outcome") or ("merged" if result.get("mergedInto") else "created")
                for what in (kind, "supersedes" if result.get("supersedes") else None,
                             "conflictsWith" if result.get("conflictsWith") else None):  # fmt: skip
                    if what:
                        tally[what] = tally.get(what, 0) + 1
        return spent


def load(sides: dict[str, Side], user: str, notes: list[Note], vectors: list[list[float]]) -> None:
    """The same notes (dedupe off) into each side's ``user``, 1,000 a request."""
    for start in range(0, len(notes), 1_000):
        part = zip(notes[start : start + 1_000], vectors[start : start + 1_000], strict=True)
        body = json.dumps({"items": [item(n, v, dedupe=False) for n, v in part]}).encode()
        for side in sides.values():
            side.post(f"{side.name}-{user}", "/v1/knowledge/batch", body, None)


def writes(sides: dict[str, Side], user: str, stream: list[Note], vectors: list[list[float]] | None,
           size: Size, tag: str) -> dict[str, Any]:  # fmt: skip
    """Singles, batches of 100 and of 1,000 of ``stream``, the sides taking turns; per side, the
    singles' p50/p95 and each batch size's time per note."""
    at = 0

    def bodies(count: int, batch: bool) -> bytes:
        nonlocal at
        part = [item(n, vectors[at + i] if vectors else None) for i, n in enumerate(stream[at : at + count])]
        at += count
        return json.dumps({"items": part} if batch else part[0]).encode()

    seconds: dict[str, dict[str, list[float]]] = {s: {} for s in sides}
    plan = [("warm", 1, 10, False), ("single", 1, size.singles, False),
            ("warm", 100, 1, True), ("batch_100", 100, size.batches_100, True),
            ("batch_1000", 1_000, size.batches_1000, True)]  # fmt: skip
    for stage, count, calls, batch in plan:
        for n in range(calls):
            body = bodies(count, batch)
            for name in rotated(list(SIDES), n + (stage == "batch_1000")):
                side = sides[name]
                path = "/v1/knowledge/batch" if batch else "/v1/knowledge"
                took = side.post(f"{name}-{user}", path, body, None if stage == "warm" else f"{tag}/{stage}")
                seconds[name].setdefault(stage, []).append(took / count)
    figures: dict[str, Any] = {"written": at}
    for name in sides:
        s = seconds[name]
        figures[name] = {
            "single_p50_ms": round(percentile(s["single"], 50) * 1000, 2),
            "single_p95_ms": round(percentile(s["single"], 95) * 1000, 2),
            "batch_100_ms_per_note": round(sum(s["batch_100"]) / len(s["batch_100"]) * 1000, 3),
            "batch_1000_ms_per_note": round(sum(s["batch_1000"]) / len(s["batch_1000"]) * 1000, 3),
        }
    figures["new_over_today"] = {
        k: round(figures["new"][k] / figures["today"][k], 2) for k in figures["today"]
    }
    return figures


def write_vault(folder: Path, notes: list[Note]) -> None:
    """Plain Markdown, one note a file, its title the opening heading."""
    folder.mkdir(parents=True)
    for i, (title, content) in enumerate(notes):
        (folder / f"note-{i:05d}.md").write_text(f"# {title}\n\n{content}\n")


def vault_import(side: Side, secret: str, vault: Path, state: Path) -> dict[str, Any]:
    """``ctxnet import`` of the vault into a fresh user: seconds and what became of the notes."""

    async def run() -> dict[str, Any]:
        async with AsyncClient(side.api.base_url, secret) as client:
            before = metric_sums(side.api.base_url)
            started = time.perf_counter()
            report = await run_import(vault, client, progress=io.StringIO(), state=state)
            spent = time.perf_counter() - started
            after = metric_sums(side.api.base_url)
        assert not report.rejected and not report.failure, report.view()
        split = {
            k: round(v - before.get(k, 0.0), 2) for k, v in after.items() if v - before.get(k, 0.0) > 0.005
        }
        return {"seconds": round(spent, 1), "created": report.created, "merged": report.merged,
                "split_s": split}  # fmt: skip

    return asyncio.run(run())


def breakdown(sides: dict[str, Side]) -> dict[str, Any]:
    """Per stage and side, ms per note: the candidate query, the candidates' read, other
    statements, the embedder and the rest (the API's Python, HTTP)."""
    out: dict[str, Any] = {}
    for stage in next(iter(sides.values())).split:
        notes = sum(sides["today"].outcomes[stage].get(k, 0) for k in ("created", "merged", "existing"))
        row: dict[str, Any] = {}
        for name, side in sides.items():
            split = side.split[stage]
            twins = sum(v for k, v in split.items() if "twins_" in k)
            read = sum(v for k, v in split.items() if k.endswith("notes_by_ids"))
            cypher = sum(v for k, v in split.items() if k not in ("wall", "embedder")) - twins - read
            embed = split.get("embedder", 0.0)
            rest = split["wall"] - twins - read - cypher - embed
            parts = {"twins_query": twins, "notes_by_ids": read, "other_cypher": cypher, "embedder": embed,
                     "rest": rest, "wall": split["wall"]}  # fmt: skip
            row[name] = {k: round(v / notes * 1000, 3) for k, v in parts.items()} | {
                "outcomes": side.outcomes[stage]
            }
        out[stage] = row
    return out


def rev(name: str) -> str:
    """A commit's short hash."""
    return subprocess.run(["git", "rev-parse", "--short", name], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()  # fmt: skip


def main(size: Size = FULL) -> dict[str, Any]:
    """Both sides on one private Neo4j; figures saved unless ``QUICK``."""
    new = rev("HEAD")
    figures: dict[str, Any] = {
        "today": rev(TODAY),
        "new": new,
        "size": asdict(size),
        "turn_words": TURN_WORDS,
    }
    source = Notes()
    embedder = LocalEmbedder(models_dir=Settings().resolved_models_dir, threads=2)
    started = time.perf_counter()
    with (
        private_neo4j("ctxnet-bench-update-cost-") as (settings, env, local),
        checkout(TODAY) as today_tree,
        checkout(new) as new_tree,
    ):
        local.start()
        trees = {"today": today_tree, "new": new_tree}
        apis = {s: ApiProcess(settings.data_dir / f"api-{s}.log", env, cwd=trees[s]).start() for s in SIDES}
        try:
            for api in apis.values():
                api.wait_ready()
            sides = {s: Side(s, apis[s]) for s in SIDES}
            users = [f"u{n}-{mode}" for n in size.users for mode in ("vectors", "text")]
            imports = [f"import{k}" for k in range(size.imports)]
            secrets = asyncio.run(keys(settings, [f"{s}-{u}" for s in SIDES for u in users + imports]))
            for user in users:
                for s, side in sides.items():
                    side.client(f"{s}-{user}", secrets[f"{s}-{user}"])
            biggest = max(size.users)
            base = source.base(biggest, seed=1)
            small = {n: source.base(n, seed=n) for n in size.users if n != biggest}
            texts = dict(small) | {biggest: base}
            every = sorted({note for notes in texts.values() for note in notes})
            t0 = time.perf_counter()
            vectors = dict(zip(every, embedder.embed_sync([f"{t}\n{c}" for t, c in every]), strict=True))
            figures["embedded_per_s"] = round(len(every) / (time.perf_counter() - t0), 1)
            for user in users:
                held = texts[int(user[1:].split("-")[0])]
                load(sides, user, held, [vectors[n] for n in held])
            figures["settle_s"] = settle(local)
            runs: dict[str, Any] = {}
            for k, user in enumerate(users):
                stream = source.stream(size.singles + 10 + 100 * (size.batches_100 + 1)
                                       + 1_000 * size.batches_1000, seed=100 + k)  # fmt: skip
                given = None
                if user.endswith("vectors"):
                    given = embedder.embed_sync([f"{t}\n{c}" for t, c in stream])
                runs[user] = writes(sides, user, stream, given, size, user)
                print(user, json.dumps(runs[user]), flush=True)
            figures["writes"] = runs
            figures["breakdown_ms_per_note"] = breakdown(sides)
            vault = settings.data_dir / "vault"
            rng = random.Random(9)
            turns = source.take_turns(size.vault // 10)
            pairs = (source.old + source.new)[: size.vault // 10]
            notes = pairs + turns + Notes.templated(rng, size.vault - len(pairs) - len(turns))
            rng.shuffle(notes)
            write_vault(vault, notes)
            settle(local)
            done: dict[str, list[dict[str, Any]]] = {s: [] for s in SIDES}
            order = [s for k in range(size.imports) for s in rotated(list(SIDES), k)]  # today new new today
            for k, name in enumerate(order):
                user = f"{name}-import{len(done[name])}"
                state = settings.data_dir / f"import-{k}.json"
                done[name].append(vault_import(sides[name], secrets[user], vault, state))
                print(name, done[name][-1], flush=True)
            mean = {s: sum(r["seconds"] for r in done[s]) / len(done[s]) for s in SIDES}
            figures["import"] = {"notes": len(notes), "runs": done,
                                 "new_over_today": round(mean["new"] / mean["today"], 2)}  # fmt: skip
        finally:
            for api in apis.values():
                api.stop()
    figures["minutes"] = round((time.perf_counter() - started) / 60, 1)
    print_table(figures)
    if size != QUICK:
        path = save("update_cost", figures)
        print(f"update-cost figures on {machine()['cpu']} ({machine()['cores']} cores) -> {path}")
    return figures


def print_table(figures: dict[str, Any]) -> None:
    """The figures as docs/benchmarks.md shows them."""
    print("\n| User holds | Mode | Figure | Today | New | New ÷ today |\n|---|---|---|---|---|---|")
    for user, run in figures["writes"].items():
        held, mode = user[1:].split("-")
        for key, value in run["today"].items():
            print(f"| {int(held):,} | {mode} | {key} | {value} | {run['new'][key]} | "
                  f"{run['new_over_today'][key]}× |")  # fmt: skip
    runs = figures["import"]["runs"]
    seconds = {s: " / ".join(str(r["seconds"]) for r in runs[s]) for s in SIDES}
    print(f"| (fresh) | vault import, {figures['import']['notes']:,} notes | s | {seconds['today']} | "
          f"{seconds['new']} | {figures['import']['new_over_today']}× |")  # fmt: skip
    print("\n| Stage | Side | " + " | ".join(PARTS) + " |\n|---|---|" + "---|" * len(PARTS))
    for stage, row in figures["breakdown_ms_per_note"].items():
        for name in SIDES:
            print(f"| {stage} | {name} | " + " | ".join(str(row[name][k]) for k in PARTS) + " |")


if __name__ == "__main__":
    main(QUICK if sys.argv[1:] == ["quick"] else FULL)
