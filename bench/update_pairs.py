"""Updates told from siblings, on a yardstick written blind: ``python -m bench.update_pairs``.

The pairs are in ``bench/data/``: ``update_pairs_fit.json`` (the half the rule was fitted
on) and ``update_pairs_held_out.json`` (the half no tuning reads), each written by a
different helper who had not seen the rule's code, 320 pairs each: updates in other words,
tense and structure, restatements, siblings (enumerations, ids, ordinals, other people,
places, periods, components) and near misses (the same subject, another property). Beside
them, LongMemEval's knowledge-update evidence (``updates.json``, 68 pairs, split in two
halves by a hash of the text) and the project's older hand-written pairs (fitted half).

For each pair, as a create would decide it (:mod:`graph.knowledge.subjects`):

* **candidate**: the old note is among those the new one is compared with (cosine of the
  notes as stored, title and content, at or above the model's update floor);
* **relation**: what the rule says the new note is to the old;
* **superseded**: a candidate the rule calls an update (the old value is no longer current);
* **folded**: a candidate at or above the dedupe threshold the rule calls a restatement;
* **undecided**: a candidate the rule leaves to a model, when one is configured
  (:func:`graph.knowledge.dedupe.undecided`);
* **before**: as the service decided before this rule (a twin at or above the dedupe threshold
  whose values differ superseded it, else folded; nothing below the threshold was compared).

Goals on the held-out half: updates superseded ≥ 0.85; siblings and near misses superseded
≤ 1 %; restatements folded as many as the near twins among them. ``--half fit`` reports the
fitted half, ``--misses`` prints each pair the rule gets wrong (only ever for the fitted half
while tuning). Saved as ``bench/results/update_pairs.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import machine, save
from graph.core.embeddings import LOCAL_MODELS, LocalEmbedder
from graph.knowledge.dedupe import undecided
from graph.knowledge.subjects import Relation, relate
from graph.knowledge.updates import compare

DATA = Path(__file__).parent / "data"
HALVES = {"fit": "update_pairs_fit.json", "held_out": "update_pairs_held_out.json"}
#: Labels whose pairs must never supersede.
KEEP_BOTH = ("sibling", "near_miss")


def _half_of(text: str) -> str:
    return "fit" if hashlib.sha256(text.encode()).digest()[0] % 2 == 0 else "held_out"


def _side(content: str, title: str = "") -> dict[str, str]:
    return {"title": title, "content": content}


def pairs(half: str) -> list[dict[str, Any]]:
    """The labelled pairs of one half: the written half, LongMemEval's evidence of that half,
    and (fitted half only) the older hand-written pairs."""
    out: list[dict[str, Any]] = []
    path = DATA / HALVES[half]
    if path.exists():
        out += json.loads(path.read_text())["pairs"]
    older = json.loads((DATA / "updates.json").read_text())
    for i, (old, new) in enumerate(older["updates"]["fromLongMemEval"]):
        if _half_of(old + new) == half:
            out.append({"id": f"LME-{i:03d}", "label": "update", "kind": "longmemeval",
                        "old": _side(old), "new": _side(new)})  # fmt: skip
    if half == "fit":
        for i, (old, new) in enumerate(older["updates"]["handWritten"]):
            out.append({"id": f"HW-{i:03d}", "label": "update", "kind": "hand_written",
                        "old": _side(old), "new": _side(new)})  # fmt: skip
        for i, (old, new) in enumerate(older["restatements"]):
            out.append({"id": f"HR-{i:03d}", "label": "restatement", "kind": "hand_written",
                        "old": _side(old), "new": _side(new)})  # fmt: skip
        twins = json.loads((DATA / "twins.json").read_text())
        for label, key in (("restatement", "same"), ("near_miss", "different")):
            for i, (old, new) in enumerate(twins[key]):
                out.append({"id": f"TW-{key}-{i:03d}", "label": label, "kind": "twins",
                            "old": _side(old[1], old[0]), "new": _side(new[1], new[0])})  # fmt: skip
    return out


def note(side: dict[str, str]) -> str:
    """A note as the service embeds it: title, newline, content."""
    return f"{side['title']}\n{side['content']}"


def measure(half: str, model: str, show_misses: bool) -> dict[str, Any]:
    labelled = pairs(half)
    spec = LOCAL_MODELS[model]
    embedder = LocalEmbedder(spec)
    old = np.array(embedder.embed_sync([note(p["old"]) for p in labelled]))
    new = np.array(embedder.embed_sync([note(p["new"]) for p in labelled]))
    cosines = (old * new).sum(axis=1)
    tally: dict[str, Counter[str]] = defaultdict(Counter)
    misses = []
    for p, cosine in zip(labelled, cosines, strict=True):
        candidate = cosine >= spec.update_floor
        twin = cosine >= spec.dedupe_threshold
        relation, _ = relate(
            p["old"]["title"], p["old"]["content"], p["new"]["title"], p["new"]["content"], twin=bool(twin)
        )
        before = compare(p["old"]["content"], p["new"]["content"]) if twin else None
        outcome = {
            "superseded_before": before is not None and before.supersedes,
            "folded_before": twin and before is None,
            "superseded": candidate and relation is Relation.UPDATE,
            "conflict": candidate and relation is Relation.CONFLICT,
            "folded": cosine >= spec.dedupe_threshold and relation is Relation.RESTATEMENT,
            "undecided": candidate and undecided(relation, bool(twin)),
            "candidate": candidate,
            "near_twin": cosine >= spec.dedupe_threshold,
        }
        for key in (p["label"], f"{p['label']}/{p['kind']}"):
            tally[key]["pairs"] += 1
            tally[key][relation.value] += 1
            tally[key].update(k for k, v in outcome.items() if v)
        wrong = outcome["superseded"] != (p["label"] == "update") or (
            p["label"] == "restatement" and relation is not Relation.RESTATEMENT
        )
        if wrong:
            misses.append({"id": p["id"], "label": p["label"], "relation": relation.value,
                           "cosine": round(float(cosine), 3), "old": p["old"], "new": p["new"]})  # fmt: skip
    if show_misses:
        for m in misses:
            print(json.dumps(m, ensure_ascii=False))
    return {
        "pairs": len(labelled),
        "by_label": {k: dict(v) for k, v in sorted(tally.items())},
        "misses": len(misses),
    }


def summary(figures: dict[str, Any]) -> list[str]:
    """The goals' figures, one line per label."""
    lines = []
    for label, counts in figures["by_label"].items():
        if "/" in label:
            continue
        n = counts["pairs"]
        superseded, conflict = counts.get("superseded", 0) / n, counts.get("conflict", 0) / n
        lines.append(
            f"{label:12} {n:4} pairs  superseded {superseded:.3f}  conflict {conflict:.3f}"
            f"  folded {counts.get('folded', 0)}/{counts.get('near_twin', 0)} near twins"
            f"  candidates {counts.get('candidate', 0) / n:.3f}"
            f"  undecided {counts.get('undecided', 0) / n:.3f}"
            f"  | before: superseded {counts.get('superseded_before', 0) / n:.3f}"
            f"  folded {counts.get('folded_before', 0)}"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half", choices=[*HALVES, "both"], default="both")
    parser.add_argument("--model", choices=list(LOCAL_MODELS), default="bge-small-en-v1.5")
    parser.add_argument("--misses", action="store_true", help="print each pair the rule gets wrong")
    args = parser.parse_args()
    halves = list(HALVES) if args.half == "both" else [args.half]
    if args.misses and "held_out" in halves:
        parser.error("--misses is for the fitted half only: the held-out half is not for tuning")
    figures = {half: measure(half, args.model, args.misses) for half in halves}
    for half in halves:
        print(f"\n{half} ({args.model})")
        print("\n".join(summary(figures[half])))
    save("update_pairs", {"machine": machine(), "model": args.model, "figures": figures})


if __name__ == "__main__":
    main()
