"""How long a similarity report takes for a class: N submissions (the lab's four styles with
renamed variables and reordered helpers, so most pairs are independent-looking), compared with
the same engine and settings the worker uses.

    python bench/similarity.py [--students 300]

Writes bench/results/similarity.json.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def corpus(n: int, seed: int = 7) -> dict[int, str]:
    styles = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "tests" / "fixtures" / "similarity").glob("*.py"))
              if p.stem != "dave"]
    rng = random.Random(seed)
    words = ["alpha", "beta", "gamma", "delta", "score", "value", "tmp", "acc", "buf", "res", "mat", "vec"]
    out = {}
    for i in range(n):
        src = styles[i % len(styles)]
        names = sorted(set(re.findall(r"\b([a-z_][a-z0-9_]{2,})\s*=", src)))
        for name in rng.sample(names, k=min(len(names), 6)):
            src = re.sub(rf"\b{name}\b", f"{rng.choice(words)}_{i}_{name[:3]}", src)
        out[i] = f"# student {i}\n" + src
    return out


def main() -> None:
    import sys

    sys.path.insert(0, str(ROOT))
    from autograder import settings
    from grading.similarity import boilerplate_source, compare

    ap = argparse.ArgumentParser()
    ap.add_argument("--students", type=int, default=300)
    args = ap.parse_args()
    sources = corpus(args.students)
    t0 = time.perf_counter()
    pairs = compare(sources, boilerplate=boilerplate_source("attention"), threshold=settings.SIMILARITY_THRESHOLD,
                    k=settings.SIMILARITY_NOISE_K, win=settings.SIMILARITY_WINDOW)
    seconds = time.perf_counter() - t0
    result = {"students": args.students, "pairs_compared": args.students * (args.students - 1) // 2,
              "pairs_reported": len(pairs), "seconds": round(seconds, 2)}
    out = ROOT / "bench" / "results" / "similarity.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
