"""A one-sheet Excel workbook (.xlsx): the gradebook as Excel opens it, written with XlsxWriter.

Round 34: the gradebook went out only as CSV. Excel guesses each CSV cell's type as it opens it, so a
name such as "1-2" or "3/4" came back a date, and a CSV re-saved from Excel on a Chinese Windows is
GB18030 without a byte-order mark. Here each cell's type is written, not guessed: text is a string
(XlsxWriter's own conversions of strings to numbers, formulas or links are off, so "=HYPERLINK(...)"
stays text and needs no apostrophe), a score a number.
"""

from __future__ import annotations

import io
import math
import re

import xlsxwriter

Cell = str | int | float | None

MEDIA_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

# XML 1.0 takes no other control character. XlsxWriter keeps one as an _xHHHH_ escape, which Excel shows
# as the character; a bell or a half surrogate in a name is noise, so it is left out, as the CSV does.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
# Characters Excel refuses in a sheet's name (XlsxWriter raises on them).
_NOT_IN_SHEET_NAME = re.compile(r"[\[\]:*?/\\']")
# Excel's limit on a cell's text; XlsxWriter refuses a longer string and leaves the cell empty.
_MAX_CELL_TEXT = 32_767


def write_workbook(rows: list[list[Cell]], sheet_name: str = "Sheet1") -> bytes:
    """An .xlsx of one worksheet holding `rows`, the first frozen as the header."""
    out = io.BytesIO()
    book = xlsxwriter.Workbook(out, {"in_memory": True, "strings_to_numbers": False,
                                     "strings_to_formulas": False, "strings_to_urls": False})
    sheet = book.add_worksheet(_NOT_IN_SHEET_NAME.sub(" ", sheet_name)[:31].strip() or "Sheet1")
    sheet.freeze_panes(1, 0)
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            if value is None or value == "":
                continue
            if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
                sheet.write_number(r, c, value)
            else:   # text, and a score that is not a number (XlsxWriter refuses NaN: one made the export a 500)
                sheet.write_string(r, c, _NOT_XML.sub("", str(value))[:_MAX_CELL_TEXT])
    book.close()
    return out.getvalue()
