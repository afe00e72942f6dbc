"""Worst-case cost of hostile figures and PDFs, as the web request and the worker pay it.

For each hostile file: the wall time of `validate_figure` / `validate_audit` (what an upload costs
now, with the structural limits and the limited decoding child) and, for comparison, the CPU the
same file costs when decoded in-process without those limits (what it cost before issue 10).
Writes bench/results/hostile_inputs.json.

    .venv/bin/python bench/hostile_inputs.py
"""

from __future__ import annotations

import importlib.util
import io
import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import write  # noqa: E402

_spec = importlib.util.spec_from_file_location("hostile_files", ROOT / "tests" / "audit" / "hostile_files.py")
hostile = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hostile)


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def bounded(fn, filename: str, data: bytes) -> dict:
    """Wall time of one validation as an upload pays it, and its outcome."""
    t0 = time.perf_counter()
    try:
        fn(filename, data)
        outcome = "accepted"
    except Exception as exc:  # noqa: BLE001 - InputError is the expected outcome
        outcome = getattr(exc, "code", type(exc).__name__)
    return {"wall_s": round(time.perf_counter() - t0, 3), "outcome": outcome}


def unbounded_cpu(fn, filename: str, data: bytes, cap_s: float = 120.0) -> dict:
    """CPU of the same decoding in a forked child without the new limits (capped at ``cap_s``)."""
    before = _children_cpu()
    pid = os.fork()
    if pid == 0:
        resource.setrlimit(resource.RLIMIT_CPU, (int(cap_s), int(cap_s) + 1))
        try:
            fn(filename, data)
        except BaseException:  # noqa: BLE001
            pass
        os._exit(0)
    os.waitpid(pid, 0)
    cpu = _children_cpu() - before
    return {"cpu_s": round(cpu, 2), "capped": cpu >= cap_s - 0.5}


def main() -> None:
    from PIL import Image

    from autograder import settings
    from grading import decode, inputs

    decode.warm()

    def raw_figure(filename: str, data: bytes) -> None:   # Pillow as before: header checks, full decode
        im = Image.open(io.BytesIO(data))
        if max(im.size) > 512:
            im.draft("RGB", (256, 256))
        im.load()

    jpeg_40k = hostile.progressive_jpeg_with_repeated_scan(repeats=40_000)
    jpeg_cap = hostile.progressive_jpeg_with_repeated_scan(repeats=inputs.MAX_JPEG_SCANS - 10)
    png_chunks = hostile.png_with_many_chunks()
    pdf = hostile.pdf_with_costly_page()
    rows = {
        "jpeg_4096px_40000_scans": {
            "bytes": len(jpeg_40k), "now": bounded(inputs.validate_figure, "f.jpg", jpeg_40k),
            "before_unbounded": unbounded_cpu(raw_figure, "f.jpg", jpeg_40k)},
        "jpeg_4096px_at_the_scan_cap": {
            "bytes": len(jpeg_cap), "now": bounded(inputs.validate_figure, "f.jpg", jpeg_cap),
            "before_unbounded": unbounded_cpu(raw_figure, "f.jpg", jpeg_cap)},
        "png_200000_chunks": {
            "bytes": len(png_chunks), "now": bounded(inputs.validate_figure, "f.png", png_chunks),
            "before_unbounded": unbounded_cpu(raw_figure, "f.png", png_chunks)},
        "pdf_one_page_2MB_of_text_ops": {
            "bytes": len(pdf), "now": bounded(inputs.validate_audit, "a.pdf", pdf),
            "before_unbounded": unbounded_cpu(inputs.extract_audit, "a.pdf", pdf)},
    }
    data = {"limits": {"DECODE_CPU_S": settings.DECODE_CPU_S, "DECODE_WALL_S": settings.DECODE_WALL_S,
                       "DECODE_MEMORY_BYTES": settings.DECODE_MEMORY_BYTES,
                       "MAX_JPEG_SCANS": inputs.MAX_JPEG_SCANS, "MAX_PNG_CHUNKS": inputs.MAX_PNG_CHUNKS},
            "files": rows,
            "worst_case_upload_wall_s": max(r["now"]["wall_s"] for r in rows.values())}
    path = write("hostile_inputs", data)
    for name, r in rows.items():
        print(f"{name:32s} {r['bytes']:>9,d} B  now {r['now']['wall_s']:6.3f} s ({r['now']['outcome']}),"
              f"  before {r['before_unbounded']['cpu_s']:6.2f} s CPU{' (capped)' if r['before_unbounded']['capped'] else ''}")
    print(f"worst case per file now: {data['worst_case_upload_wall_s']} s; written to {path}")


if __name__ == "__main__":
    main()
