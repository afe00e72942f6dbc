"""Decode the honest audits' figures and PDFs as uploads do (grading/decode.py), N at once.

    python bench/decode_honest_load.py [THREADS] [--cli-main]

Run it once idle and once with CPU hogs (`python -c "while True: pass"` x6 on 2 cores). Prints, as one
JSON line: outcomes (ok, a refusal code, busy), the decoding children's CPU (median, max), the slowest
upload and the honest audits' scores (graded in-process, as the worker does). ``--cli-main`` imports
``autograder.cli`` at the top of this script, as the worker (``-m autograder.cli``) and the
``autograder`` script's main modules do: before round 28 each decoding child ran it again."""

from __future__ import annotations

import io
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
if "--cli-main" in sys.argv:
    from autograder.cli import main as _cli  # noqa: F401 - the cost a decoding child used to pay again

HONEST = ROOT / "tests" / "audit" / "honest"
PADDED = [[0.27, 0.73, 0.0], [0.36, 0.64, 0.0]]


def _figure(weights: list[list[float]]) -> bytes:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig, ax = plt.subplots(figsize=(6, 4))
    fig.colorbar(ax.imshow(np.array(weights), cmap="viridis"))
    for r, row in enumerate(weights):
        for c, v in enumerate(row):
            ax.text(c, r, f"{v:.2f}", ha="center", va="center", color="w")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=300)
    plt.close(fig)
    return buf.getvalue()


def main() -> None:
    from grading import decode
    from grading.inputs import InputError, validate_audit, validate_figure
    from rubric.audit import grade_audit, load_checklist
    from tests.audit.helpers import EXAMPLE_WEIGHTS, MEASURED_OK
    from tests.audit.hostile_files import pdf_with_text

    threads = next((int(a) for a in sys.argv[1:] if a.isdigit()), 4)
    checklist = load_checklist()
    decode.warm()
    figures = {"padding": _figure(PADDED), "": _figure(EXAMPLE_WEIGHTS)}
    cpu: list[float] = []
    outcomes: dict[str, int] = {}
    slowest = [0.0]

    def decoded(check, filename: str, data: bytes) -> None:
        t0 = time.monotonic()
        try:
            with decode.cpu_meter() as spent:
                check(filename, data)
            cpu.append(spent[0])
            out = "ok"
        except InputError as exc:
            out = exc.code
        except decode.DecodeBusy:
            out = "busy"
        outcomes[f"{filename}: {out}"] = outcomes.get(f"{filename}: {out}", 0) + 1
        slowest[0] = max(slowest[0], time.monotonic() - t0)

    def one(path: Path) -> tuple[str, float]:
        text = path.read_text(encoding="utf-8")
        figure = figures["padding" if "padding" in path.name else ""]
        decoded(validate_figure, "heatmap.png", figure)
        if text.isascii():
            decoded(validate_audit, "audit.pdf", pdf_with_text([ln.replace("(", "[").replace(")", "]")
                                                                for ln in text.splitlines()]))
        return path.name, grade_audit(text, figure, MEASURED_OK, checklist)["score"]

    t0 = time.monotonic()
    with ThreadPoolExecutor(threads) as pool:
        scores = dict(pool.map(one, sorted(HONEST.glob("*.md"))))
    cpu.sort()
    print(json.dumps({"threads": threads, "load": os.getloadavg()[0], "total_s": round(time.monotonic() - t0, 1),
                      "outcomes": outcomes, "child_cpu_median_s": round(cpu[len(cpu) // 2], 3) if cpu else None,
                      "child_cpu_max_s": round(cpu[-1], 3) if cpu else None, "slowest_s": round(slowest[0], 2),
                      "scores": scores}))


if __name__ == "__main__":
    main()
