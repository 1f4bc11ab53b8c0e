"""``python -m bench.similarity``: the copy check's catches and false flags
on the corpus of ``tests/grading/copy_corpus.py``, by disguise, and its time
on a class."""

from __future__ import annotations

import time

from course import similarity
from tests.grading import copy_corpus


def main() -> None:
    started = time.monotonic()
    found = copy_corpus.measure()
    seconds = time.monotonic() - started
    honest = found["honest pairs"] + found["false flags"]
    caught, missed = found["caught"], found["missed"]
    print(
        f"threshold {similarity.THRESHOLD:.0%} of the smaller answer's shingles "
        f"or statements in order, size floor {similarity.MIN_SIZE} shingles"
    )
    print(f"false flags: {len(found['false flags'])} of {len(honest)} honest pairs")
    large = [v for label, v in honest if "honest" in label]
    print(f"  highest honest resemblance: {max(large):.2f}")
    print(f"catches: {len(caught)} of {len(caught) + len(missed)} copies")
    for source in ("model", "classmate"):
        for kind in copy_corpus.DISGUISES:
            tag = f" {source} " if source == "model" else " classmate "
            hits = sum(tag in f" {lb} " and f" {kind} (" in lb for lb, _ in caught)
            total = hits + sum(
                tag in f" {lb} " and f" {kind} (" in lb for lb, _ in missed
            )
            if total:
                print(f"  {source} {kind}: {hits} of {total}")
    for label, _ in missed + found["false flags"]:
        print(f"  ! {label}")
    print(f"too small to compare (never flagged): {len(found['too small'])} copies")
    clustered = found["clustered"]
    print(
        f"three short copies found as a cluster: {len(clustered)} of "
        f"{len(clustered) + len(found['not clustered'])}"
    )
    for label, _ in found["honest clusters"]:
        print(f"  honest: {label}")
    print(f"measured in {seconds:.1f} s")
    # A class: 100 students x the largest answers, through the index.
    solutions = similarity._cells(similarity.ROOT / "solutions")
    prints = similarity.model_prints()
    answers = [
        (f"s{n}", exercise, copy_corpus.renamed(sources[0], prefix=f"z{n}_"))
        for n in range(100)
        for exercise, sources in solutions.items()
        if exercise in ("1.10", "2.10", "3.12", "4.12")
    ]
    started = time.monotonic()
    pairs = similarity.class_pairs(answers, prints)
    print(
        f"a class of 100 with 4 answers each, all the same: {len(pairs)} pairs "
        f"in {time.monotonic() - started:.1f} s"
    )


if __name__ == "__main__":
    main()
