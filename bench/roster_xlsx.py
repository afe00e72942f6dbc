"""Why the roster's workbook reader is ours (app/roster_xlsx.py): a workbook of a few kilobytes whose first
row holds a million empty cells, read by our bounded reader and, when it is importable, by openpyxl's
read-only mode (not a dependency: `pip install --target /tmp/oxl openpyxl` and PYTHONPATH=/tmp/oxl).
Each reader runs in a child process, so its peak memory is its own. Writes bench/results/roster_xlsx.json.

    .venv/bin/python bench/roster_xlsx.py [--cells 1000000]
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import write  # noqa: E402

NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
RNS = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'
PKG = "http://schemas.openxmlformats.org/package/2006"
OFFICE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
SHEET_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml"


def workbook(cells: int) -> bytes:
    """A minimal workbook both readers accept, its one row `cells` empty cells long."""
    parts = {
        "[Content_Types].xml": f'<Types xmlns="{PKG}/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        f'<Override PartName="/xl/workbook.xml" ContentType="{SHEET_TYPE}.sheet.main+xml"/>'
        f'<Override PartName="/xl/worksheets/sheet1.xml" ContentType="{SHEET_TYPE}.worksheet+xml"/></Types>',
        "_rels/.rels": f'<Relationships xmlns="{PKG}/relationships">'
        f'<Relationship Id="rId1" Type="{OFFICE}/officeDocument" Target="xl/workbook.xml"/></Relationships>',
        "xl/workbook.xml": f'<workbook {NS} {RNS}><sheets><sheet name="Roster" sheetId="1" r:id="rId1"/>'
        "</sheets></workbook>",
        "xl/_rels/workbook.xml.rels": f'<Relationships xmlns="{PKG}/relationships">'
        f'<Relationship Id="rId1" Type="{OFFICE}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
        "xl/worksheets/sheet1.xml": f'<worksheet {NS}><sheetData><row r="1">' + "<c/>" * cells
        + "</row></sheetData></worksheet>",
    }
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in parts.items():
            z.writestr(name, text)
    return buf.getvalue()


READERS = {
    "ours": "from app.roster_xlsx import xlsx_rows\nrows = xlsx_rows(data)\n"
            "outcome = 'refused' if rows is None else f'{len(rows)} rows'\n",
    "openpyxl": "import openpyxl\nwb = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)\n"
                "outcome = f'{sum(len(r) for r in wb.worksheets[0].iter_rows(max_col=8))} cells'\n",
}
CHILD = """
import io, json, resource, sys, time
sys.path.insert(0, {root!r})
data = sys.stdin.buffer.read()
start = time.process_time()
{body}
print(json.dumps({{"cpu_s": round(time.process_time() - start, 2), "outcome": outcome,
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cells", type=int, default=1_000_000)
    args = parser.parse_args()
    data = workbook(args.cells)
    results: dict[str, object] = {"workbook_bytes": len(data), "cells_in_row_1": args.cells}
    for name, body in READERS.items():
        run = subprocess.run([sys.executable, "-c", CHILD.format(root=str(ROOT), body=body)], input=data,
                             capture_output=True)
        results[name] = json.loads(run.stdout) if run.returncode == 0 else \
            {"unavailable": run.stderr.decode(errors="replace").strip().splitlines()[-1:]}
    print(json.dumps(results, indent=2))
    write("roster_xlsx", results)


if __name__ == "__main__":
    main()
