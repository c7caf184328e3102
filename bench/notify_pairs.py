"""Which conversations hear of a new decision, measured on a labelled yardstick through the API:
precision and recall per user, on the calibration half and the held-out half, beside the
method before it (a fixed cosine, 0.76 for bge-small), in one run.

The yardstick (``bench/data/notify_pairs.json``, hand-written): four users (a backend, a
frontend, a data and a platform engineer) each hold 31-34 software-project threads of 2-4
messages, and record 10-11 decisions (title, context, decision, consequences, tags). Each
decision is paired with every thread of its user: 1,331 pairs, 91 related (the threads the
decision affects), 31 of the unrelated ones near misses that share its words but not its
meaning (a Postgres meetup talk beside "Use PostgreSQL for all services"). Decisions
alternate between the calibration half and the held-out half. (Until 2026-12-02, third
pass: 24-25 threads and 8-9 decisions per user, 808 pairs, 67 related, 22 near misses.)

The **fresh half**: four more users (a mobile, a machine-learning, a security and a QA
engineer), 36 threads and 10 decisions each, 1,440 pairs, 109 related, 35 near misses,
labelled on 2026-12-02 by people who saw no model and no score, after the method (both
models, their max) and its standing were fixed. Nothing is chosen on it: it tells whether
the figures of the first two halves hold for users the method was never fitted to.

On a private Neo4j with the API in its own process (:func:`bench.corpus.private_api`), every
user's threads and messages are posted, their insights extracted (the offline rule
extractor, as a deployment without an LLM has it), and ``noise`` more users store copies of
all of them (other users' threads that are as close to each decision as the real ones).
Once every gist is embedded, each user records their decisions through ``POST /v1/decisions``
and the threads named in ``notifiedThreads`` are the ones told.

The service compares a decision with each thread by two models (bge-small, the embedder, and
the second model of ``CTXNET_DECISION_NOTIFY_SECOND_MODEL``, all-MiniLM-L6-v2; fourth pass).
Beside it, in the same run and on the vectors the service stored:

* **before**: the method of the first pass: a thread is told when its gist or an insight is
  at least ``notify_floor`` similar to the decision's own vector (title and decision);
* **without the parts**: bge-small alone with the decision's parts left out (its note and
  each consequence, :func:`graph.project.notify.decision_texts`; the second pass), at the
  default and at the standing its own calibration half chooses;
* **bge-small alone** (``bgeOnly``; the third pass, and what the service does with the
  second model disabled): at the default, at the standing its calibration half chooses, and
  its ceiling per user;
* **the calibration sweep**: the standing (``CTXNET_DECISION_NOTIFY_STANDING``) chosen on
  the calibration half (the weakest user against the goal, precision 0.95 and recall 0.80,
  then everyone; a tie goes to the lower standing): the arithmetic of
  :mod:`graph.project.notify` replayed on every pair for each candidate value (it agrees with
  the API at the default: ``replayedAtDefault``, and the run fails if the threads differ);
  the held-out half is only reported;
* **the ceiling per user** (``ceilingPerUser``): every pair ranked by the standing it
  reaches, the best precision at a recall of 0.80 and the best recall at a precision of 0.95
  that any line of that user's own could give (:func:`ceiling`).

Last, the cost: the second model's embedding of a decision's texts (each alone, as the service
embeds them) beside bge-small's; recording a decision for a user with 2,000 recent threads (of
which a decision reads the 500 most recent) of 10 insights each, server time, beside the
statement that reads them, raw, with both models' vectors and with bge-small's alone
(:mod:`bench.notify_cost`).

``python -m bench.notify_pairs`` (about 5 minutes on 2 cores) saves
``bench/results/notify_pairs.json``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import math
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from bench.common import machine, save
from bench.corpus import private_api, server_seconds, user_key
from bench.notify_cost import cost
from graph.core.cypher import cypher_text
from graph.core.embeddings import build_embedder, build_notify_embedder, embed_each, notify_floor
from graph.core.settings import Settings
from graph.project import notify as notifying
from graph.project.affected import SCAN_INSIGHTS, TEXT_THREADS, NotifyConfig

DATA = Path(__file__).parent / "data" / "notify_pairs.json"
SWEEP = tuple(round(1.0 + 0.1 * i, 1) for i in range(21))
THREADS = """
MATCH (t:Thread) WHERE t.userId = $userId
CALL (t) {
  MATCH (i:Insight) WHERE i.userId = $userId AND i.threadId = t.id
  WITH i ORDER BY i.extractedAt DESC, i.id DESC LIMIT $insights
  WITH i WHERE i.embedding IS NOT NULL
  RETURN collect(i.embedding) AS insights
}
RETURN t.id AS id, t.embedding AS gist, insights,
       CASE WHEN t.notifyModel = $notifyModel THEN t.notifyEmbedding END AS second
"""
DECISIONS = """
MATCH (n:Knowledge) WHERE n.userId = $userId AND n.id IN $ids RETURN n.id AS id, n.embedding AS v
"""
PENDING = """
MATCH (t:Thread) WHERE t.embeddedSeq IS NULL OR t.embeddedSeq <> t.messageCount RETURN count(t) AS n
"""


def load(client: httpx.Client, threads: list[dict[str, Any]], prefix: str = "", extract: bool = True) -> None:
    """Post threads and their messages; extract insights from each (the rule extractor)."""
    for t in threads:
        thread_id = prefix + t["id"]
        body = {"id": thread_id, "contextType": t["contextType"], "topic": t["topic"]}
        client.post("/v1/threads", json=body).raise_for_status()
        client.post(f"/v1/threads/{thread_id}/messages", json={"messages": t["messages"]}).raise_for_status()
    if not extract:
        return
    jobs = []
    for t in threads:
        answer = client.post(f"/v1/threads/{prefix + t['id']}/extract")
        answer.raise_for_status()
        jobs.append(answer.json()["jobId"])
    for job in jobs:
        for _ in range(600):
            status = client.get(f"/v1/jobs/{job}").json()["status"]
            if status in ("done", "failed"):
                break
            time.sleep(0.1)
        if status != "done":
            raise RuntimeError(f"extraction job {job}: {status}")


def figures(told: dict[str, set[str]], decisions: list[dict[str, Any]]) -> dict[str, Any]:
    """Precision, recall and the near misses told, over ``decisions``."""
    tp = fp = fn = near = 0
    for d in decisions:
        said, related = told.get(d["id"], set()), set(d["related"])
        tp, fp, fn = tp + len(said & related), fp + len(said - related), fn + len(related - said)
        near += len(said & set(d["nearMisses"]))
    return {
        "precision": round(tp / (tp + fp), 3) if tp + fp else None,
        "recall": round(tp / (tp + fn), 3) if tp + fn else None,
        "told": tp + fp, "related": tp + fn, "falsePositives": fp, "nearMissesTold": near,
    }  # fmt: skip


#: The parts of the yardstick figures are given for: its halves, the two together (what the
#: method was built and tuned on), and the fresh half (users labelled after it was fixed).
HALVES = {
    "calibration": ("calibration",), "heldOut": ("heldOut",), "both": ("calibration", "heldOut"),
    "fresh": ("fresh",),
}  # fmt: skip


def report(told: dict[str, set[str]], users: list[dict[str, Any]]) -> dict[str, Any]:
    """Figures per user (who has decisions in it) and overall, for each part of :data:`HALVES`."""
    out: dict[str, Any] = {}
    for name, halves in HALVES.items():
        part = [(u["id"], [d for d in u["decisions"] if d["half"] in halves]) for u in users]
        out[name] = {who: figures(told, decisions) for who, decisions in part if decisions}
        out[name]["all"] = figures(told, [d for _, decisions in part for d in decisions])
    return out


def unit(vectors: list[Any]) -> np.ndarray:
    """Rows normalised to unit length."""
    array = np.array(vectors, dtype=np.float64)
    normalised: np.ndarray = array / np.linalg.norm(array, axis=1, keepdims=True)
    return normalised


Swept = dict[float, dict[str, set[str]]]
#: Each decision's threads with the standing they reach (with terms; ``inf``: told as similar).
Scored = dict[str, list[tuple[float, str]]]
#: The methods replayed at every standing: now (both models), bge-small alone, and bge-small
#: alone without the decision's parts.
METHODS = ("now", "bgeOnly", "withoutParts")


def replay(
    stored: dict[str, Any],
    user: dict[str, Any],
    config: NotifyConfig,
    sides: dict[str, np.ndarray],
    seconds: dict[str, np.ndarray] | None,
) -> tuple[dict[str, set[str]], dict[str, Swept], dict[str, Scored]]:
    """The method before (a fixed cosine to the decision's own vector), and each of
    :data:`METHODS` at each standing of :data:`SWEEP`, on the vectors the service stored
    (``seconds``: the decision's vectors by the second model, ``None``: none); and every
    thread's standing by now and by bge-small alone, whatever the line."""
    gists, insights, texts, second = stored["gists"], stored["insights"], stored["texts"], stored["second"]
    before: dict[str, set[str]] = {}
    swept: dict[str, Swept] = {m: {s: {} for s in SWEEP} for m in METHODS}
    scored: dict[str, Scored] = {"now": {}, "bgeOnly": {}}
    two = config.second_prior_mean
    for d in user["decisions"]:
        own, about, why, *consequences = stored["decisions"][d["id"]], *sides[d["id"]][1:]
        parts = [own, *consequences]
        by_second = seconds[d["id"]] if seconds is not None else None
        before[d["id"]] = set()
        candidates = []
        for thread_id, gist in gists.items():
            found = [float(gist @ v) for v in (own, about, why)]
            near = [max((float(i @ v) for i in insights[thread_id]), default=None) for v in (own, about)]
            best = [max(g, i) if i is not None else g for g, i in zip(found, near, strict=False)]
            if best[0] >= notify_floor(Settings()):  # before: every insight counted; here the newest
                before[d["id"]].add(thread_id)
            part = max(float(gist @ v) for v in parts)
            also: list[float | None] = [None, None, None]
            if by_second is not None and second[thread_id] is not None:  # as decision_threads.cypher
                note2, about2, why2, *consequences2 = by_second
                g2 = second[thread_id]
                also = [
                    float(g2 @ about2),
                    float(g2 @ why2),
                    max(float(g2 @ v) for v in (note2, *consequences2)),
                ]
            candidates.append(
                notifying.Candidate(thread_id, best[1], found[2], found[1], near[1], False, part, *also)
            )
        terms, gone = notifying.decision_words(d["title"], d["decision"], d["consequences"], d["tags"])
        bare = [dataclasses.replace(c, part=None) for c in candidates]
        for method, these, prior in (
            ("now", candidates, two),
            ("bgeOnly", candidates, None),
            ("withoutParts", bare, None),
        ):
            rule = notifying.Rule(config.min_similarity, 0.0, config.prior_mean, prior)
            base = notifying.standings(these, rule)
            read = {tid: texts[tid] for tid in notifying.closest(base, TEXT_THREADS)}
            shared, events = notifying.shared_terms(terms, read, gone), notifying.event_threads(read)
            for standing in SWEEP:
                rule = notifying.Rule(config.min_similarity, standing, config.prior_mean, prior)
                chosen = notifying.choose(these, rule, shared, config.max_threads, base, gone, events)
                swept[method][standing][d["id"]] = {t.thread_id for t in chosen}
            if method in scored:
                rule = notifying.Rule(config.min_similarity, -math.inf, config.prior_mean, prior)
                every = notifying.choose(these, rule, shared, len(these), base, gone, events)
                scored[method][d["id"]] = [(_reached(t), t.thread_id) for t in every]
    return before, swept, scored


def _reached(told: notifying.Told) -> float:
    """The standing a thread reaches (``inf``: similar enough to be told at any line)."""
    if told.reason == "similar" or told.standing is None:
        return math.inf
    return told.standing


def ceiling(scored: Scored, users: list[dict[str, Any]]) -> dict[str, Any]:
    """For each user, on both halves, what the best standing line of that user's own could
    do: the best precision at a recall of 0.80 at least, and the best recall at a precision
    of 0.95 at least (``None``: no line reaches it). The goal holds for a user only if one
    line gives both; a user none can serve needs better scores, not a better line."""
    out: dict[str, Any] = {}
    for u in users:
        rows = [
            (score, tid in d["related"]) for d in u["decisions"] for score, tid in scored.get(d["id"], [])
        ]
        related = sum(len(d["related"]) for d in u["decisions"])
        points = []
        for line in sorted({score for score, _ in rows}):
            told = [hit for score, hit in rows if score >= line]
            points.append((sum(told) / len(told), sum(told) / related))
        out[u["id"]] = {
            "precisionAtRecall080": max((round(p, 3) for p, r in points if r >= 0.80), default=None),
            "recallAtPrecision095": max((round(r, 3) for p, r in points if p >= 0.95), default=None),
        }
    return out


def gist_texts(driver: Any, user: str) -> dict[str, str]:
    """Each thread's gist text and insights, as the service reads them."""
    rows = driver.execute_query(
        "MATCH (t:Thread) WHERE t.userId = $userId RETURN collect(t.id) AS ids", userId=user
    ).records[0]["ids"]
    query = cypher_text("queries/project/decision_thread_texts")
    return {r["id"]: r["text"] for r in driver.execute_query(query, userId=user, ids=rows).records}


def main(noise: int | None = None) -> dict[str, Any]:
    """Load the yardstick, record every decision, and save the figures."""
    data = json.loads(DATA.read_text(encoding="utf-8"))
    users: list[dict[str, Any]] = data["users"]
    noise = data["noiseUsers"] if noise is None else noise
    config = NotifyConfig.from_settings(Settings())
    embedder = build_embedder(Settings())  # as the API builds them
    second = build_notify_embedder(Settings())
    started = time.perf_counter()
    after: dict[str, set[str]] = {}
    why: dict[str, list[dict[str, Any]]] = {}
    spent: list[float] = []
    embed_ms: dict[str, list[float]] = {"bge": [], "second": []}
    before: dict[str, set[str]] = {}
    swept: dict[str, Swept] = {m: {s: {} for s in SWEEP} for m in METHODS}
    scored: dict[str, Scored] = {"now": {}, "bgeOnly": {}}
    with private_api("ctxnet-bench-notify-", "bench-notify-" + users[0]["id"], timeout=120) as (
        local,
        first,
        driver,
        _,
    ):
        keys = {u["id"]: asyncio.run(user_key(local.settings, "bench-notify-" + u["id"])) for u in users}
        base_url = str(first.base_url)
        clients = {
            name: httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {key}"}, timeout=120)
            for name, key in keys.items()
        }
        try:
            for u in users:
                load(clients[u["id"]], u["threads"])
            every = [t for u in users for t in u["threads"]]
            for n in range(noise):  # other users, each holding copies of every user's threads
                key = asyncio.run(user_key(local.settings, f"bench-notify-noise-{n}"))
                with httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {key}"}) as other:
                    load(other, every, prefix="copy-", extract=False)
            loaded = round(time.perf_counter() - started, 1)
            for _wait in range(600):  # every gist embedded (in the background, after the appends)
                if driver.execute_query(PENDING).records[0]["n"] == 0:
                    break
                time.sleep(0.5)
            stored: dict[str, dict[str, Any]] = {}
            notify_model = second.model_id if second is not None else None
            for u in users:
                user = "bench-notify-" + u["id"]
                rows = driver.execute_query(
                    THREADS, userId=user, insights=SCAN_INSIGHTS, notifyModel=notify_model
                ).records
                stored[u["id"]] = {
                    "gists": {r["id"]: unit([r["gist"]])[0] for r in rows},
                    "insights": {r["id"]: [unit([v])[0] for v in r["insights"]] for r in rows},
                    "second": {r["id"]: unit([r["second"]])[0] if r["second"] else None for r in rows},
                    "texts": gist_texts(driver, user),
                }
            for u in users:
                client = clients[u["id"]]
                for d in u["decisions"]:
                    body = {k: d[k] for k in ("id", "title", "context", "decision", "consequences", "tags")}
                    answer = client.post("/v1/decisions", json=body)
                    answer.raise_for_status()
                    spent.append(server_seconds(answer))
                    told = answer.json()["notifiedThreads"]
                    after[d["id"]] = {t["threadId"] for t in told}
                    why[d["id"]] = told
                user = "bench-notify-" + u["id"]
                ids = [d["id"] for d in u["decisions"]]
                rows = driver.execute_query(DECISIONS, userId=user, ids=ids).records
                stored[u["id"]]["decisions"] = {r["id"]: unit([r["v"]])[0] for r in rows}
                sides, seconds = {}, {}
                for d in u["decisions"]:  # as the service embeds them: each text alone, the note first
                    texts = notifying.decision_texts(
                        d["title"], d["decision"], d["consequences"], d["context"]
                    )
                    for name, model, into in (("bge", embedder, sides), ("second", second, seconds)):
                        if model is None:
                            continue
                        t0 = time.perf_counter()
                        into[d["id"]] = unit(asyncio.run(embed_each(model, texts)))
                        embed_ms[name].append((time.perf_counter() - t0) * 1000)
                was, now, scores = replay(stored[u["id"]], u, config, sides, seconds if second else None)
                before |= was
                for method in METHODS:
                    for standing in SWEEP:
                        swept[method][standing] |= now[method][standing]
                for method in scored:
                    scored[method] |= scores[method]
            at_scale = cost(local, driver, base_url, embedder, second)
        finally:
            for client in clients.values():
                client.close()
    replayed = {m: {s: report(swept[m][s], users) for s in SWEEP} for m in METHODS}

    def against_goal(f: dict[str, Any]) -> float:  # precision 0.95 and recall 0.80: 1.0 meets both
        return float(min((f["precision"] or 0) / 0.95, (f["recall"] or 0) / 0.80))

    def calibrated(s: float, method: str = "now") -> tuple[float, float, float]:
        """On the calibration half only: the weakest user, then everyone, then the lower standing."""
        half = replayed[method][s]["calibration"]
        return (min(against_goal(f) for f in half.values()), against_goal(half["all"]), -s)

    def meeting(method: str) -> list[float]:
        """The standings at which every user meets the goal on both halves together."""
        return [s for s in SWEEP if all(against_goal(f) >= 1.0 for f in replayed[method][s]["both"].values())]

    chosen = {m: max(SWEEP, key=lambda s, m=m: calibrated(s, m)) for m in METHODS}
    agrees = swept["now"].get(config.standing) == after
    result: dict[str, Any] = {
        "pairs": sum(len(u["threads"]) * len(u["decisions"]) for u in users),
        "related": sum(len(d["related"]) for u in users for d in u["decisions"]),
        "nearMisses": sum(len(d["nearMisses"]) for u in users for d in u["decisions"]),
        "users": [u["id"] for u in users], "noiseUsers": noise, "loadSeconds": loaded,
        "secondModel": notify_model, "secondPriorMean": config.second_prior_mean,
        "before": {"minSimilarity": notify_floor(Settings()), **report(before, users)},
        "after": {
            "standing": config.standing, "minSimilarity": config.min_similarity, **report(after, users),
        },
        "replayedAtDefault": replayed["now"].get(config.standing),
        "replayAgreesWithApi": agrees,
        "bgeOnly": {
            "atDefault": replayed["bgeOnly"].get(config.standing),
            "chosenStanding": chosen["bgeOnly"], "atChosen": replayed["bgeOnly"][chosen["bgeOnly"]],
            "ceilingPerUser": ceiling(scored["bgeOnly"], users), "standingsMeetingGoal": meeting("bgeOnly"),
        },
        "withoutParts": {
            "atDefault": replayed["withoutParts"].get(config.standing),
            "chosenStanding": chosen["withoutParts"],
            "atChosen": replayed["withoutParts"][chosen["withoutParts"]],
        },
        "ceilingPerUser": ceiling(scored["now"], users),
        "standingsMeetingGoal": meeting("now"),
        "calibration": {
            "chosenStanding": chosen["now"],
            "atChosen": replayed["now"][chosen["now"]],
            "sweep": {
                f"{s}": {h: replayed["now"][s][h]["all"] for h in ("calibration", "heldOut", "fresh")}
                for s in SWEEP
            },
        },
        "recordMs": {
            "p50": round(statistics.median(spent) * 1000, 1),
            "max": round(max(spent) * 1000, 1),
        },
        "decisionEmbedMsP50": {k: round(statistics.median(v), 1) for k, v in embed_ms.items() if v},
        "atScale": at_scale,
        "told": {k: why[k] for k in sorted(why)},
    }  # fmt: skip
    path = save("notify_pairs", result)
    for name in ("before", "after"):
        for half in HALVES:
            line = "  ".join(
                f"{who} P{f['precision']} R{f['recall']}" for who, f in result[name][half].items()
            )
            print(f"{name:6} {half:11} {line}")
    print(f"chosen standing on the calibration half: {chosen}; default {config.standing}")
    print(f"the replay agrees with the API at the default: {agrees}")
    for method, at in (
        ("now", chosen["now"]), ("bgeOnly", config.standing), ("bgeOnly", chosen["bgeOnly"]),
        ("withoutParts", chosen["withoutParts"]), ("withoutParts", config.standing),
    ):  # fmt: skip
        for half in HALVES:
            line = "  ".join(
                f"{who} P{f['precision']} R{f['recall']}" for who, f in replayed[method][at][half].items()
            )
            print(f"replayed {method} at {at} {half:11} {line}")
    print(f"standings where every user meets the goal (both halves): now {result['standingsMeetingGoal']}, "
          f"bge-small alone {result['bgeOnly']['standingsMeetingGoal']}")  # fmt: skip
    print(f"the best line of each user's own (both halves), now: {result['ceilingPerUser']}")
    print(f"  bge-small alone: {result['bgeOnly']['ceilingPerUser']}")
    print(f"record p50 {result['recordMs']['p50']} ms on {machine()['cpu']} -> {path}")
    print(f"a decision's texts embedded, p50 ms: {result['decisionEmbedMsP50']}")
    print(f"at scale: {at_scale}")
    if not agrees:
        raise SystemExit("the replay does not reproduce the API's told threads at the default standing")
    return result


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else None)
