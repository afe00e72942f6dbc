"""``python -m rubric.audit``: validate a checklist, or grade a text file from the command line."""

from __future__ import annotations

import json

from rubric.audit.checklist import load_checklist
from rubric.audit.grade import grade_audit


def _main(argv: list[str] | None = None) -> int:
    """``python -m rubric.audit [--checklist YAML] [AUDIT] [--figure PNG]``: validate a checklist, or grade a
    text file (and figure) and print the result as JSON."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m rubric.audit")
    ap.add_argument("--checklist", default=None)
    ap.add_argument("audit", nargs="?")
    ap.add_argument("--max-abs-error", type=float)
    ap.add_argument("--row-sum-error", type=float)
    ap.add_argument("--figure", default=None, help="PNG/JPEG of the heatmap")
    args = ap.parse_args(argv)
    cl = load_checklist(args.checklist)
    if not args.audit:
        print(f"checklist ok: {len(cl.items)} items, {cl.max_points} points")
        return 0
    with open(args.audit, encoding="utf-8-sig") as fh:
        text = fh.read()
    measured = {k: v for k, v in (("max_abs_error", args.max_abs_error), ("row_sum_error", args.row_sum_error))
                if v is not None}
    figure = None
    if args.figure:
        with open(args.figure, "rb") as fh:
            figure = fh.read()
    print(json.dumps(grade_audit(text, figure, measured, cl), ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
