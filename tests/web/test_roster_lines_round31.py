"""Round 31: a roster refusal names the line where the instructor finds it.

Found by importing rosters with a quoted cell that holds a line break (a name typed with Alt+Enter in
Excel): a refusal the csv module raised named the physical line the reader had reached, which was the
record's last line, not where it starts; every record's number is now its row as a spreadsheet shows it,
with the line a text editor shows added when the two differ, in zh and en. And a quote opened and never
closed (`x@example.edu,"Bob`) read every following line into that one name: one person was created as
"Bob c@example.edu,Carl ..." and the people of those lines were silently missing."""

from __future__ import annotations

import csv

from tests.web.test_roster_round29 import import_page, names, skipped

# Row 2 holds a line break, so row 3 is blank on text line 4 and the bad email of row 4 is on text line 5.
MULTILINE = b'email,name\nalice2@example.edu,"Alice\nWang"\n\nnot-an-email,Bob\n'


def test_a_refusal_below_a_multiline_cell_names_the_spreadsheet_row_and_the_text_line(client, web, course):
    web.login(client, course["teacher"])
    status, page = import_page(client, MULTILINE, "en")
    assert status == 200
    assert "line 4 (line 5 in a text editor)" in skipped(page), skipped(page)
    status, page = import_page(client, MULTILINE, "zh")
    assert "第 4 行（文本编辑器中第 5 行）" in skipped(page), skipped(page)
    assert names()["alice2@example.edu"] == "Alice Wang"


def test_a_line_above_any_multiline_cell_keeps_its_plain_line_number(client, web, course):
    web.login(client, course["teacher"])
    status, page = import_page(client, b"email,name\nnot-an-email,Bob\n", "en")
    assert status == 200 and "line 2</td>" in page and "text editor" not in page


def test_a_record_the_csv_module_refuses_is_named_by_its_first_line_not_the_line_the_reader_reached():
    from app.roster import RosterReport, _records

    class Refusing:
        """Reads two records, then refuses the third after reading three of its physical lines."""

        def __init__(self):
            self.line_num, self.calls = 0, 0

        def __iter__(self):
            return self

        def __next__(self):
            self.calls += 1
            if self.calls <= 2:
                self.line_num += 1 if self.calls == 1 else 2   # record 2 spans lines 2-3
                return ["a@example.edu", "A"]
            self.line_num += 3
            raise csv.Error("field larger than field limit (131072)")

    report = RosterReport()
    assert len(list(_records(Refusing(), report))) == 2
    where = report.skipped[0]["where"]
    assert (where.row, where.first, where.last) == (3, 4, 6)


def test_the_field_limit_refusal_after_a_multiline_cell_names_the_row_and_first_text_line(client, web, course):
    web.login(client, course["teacher"])
    body = b'email,name\nm@example.edu,"M\nN"\nhuge@example.edu,' + b"x" * 140_000 + b"\n"
    status, page = import_page(client, body, "en")
    assert status == 200 and "line 3 (line 4 in a text editor)" in skipped(page), skipped(page)


UNCLOSED = b'email,name\nx@example.edu,"Bob\nc@example.edu,Carl\ne@example.edu,Eve\n'


def test_a_quote_never_closed_is_a_skipped_line_naming_the_lines_it_swallowed(client, web, course):
    web.login(client, course["teacher"])
    for lang, reason in (("en", "a quote (\") opened on this line is never closed, so lines 2–4 (as a text editor "
                                "numbers them) were read as one cell"),
                         ("zh", "这一行打开的引号（\"）没有闭合，因此第 2–4 行（按文本编辑器的行号）被读成了一个单元格")):
        status, page = import_page(client, UNCLOSED, lang)
        assert status == 200 and reason in skipped(page), skipped(page)
    assert "x@example.edu" not in names()   # no person named "Bob c@example.edu,Carl e@example.edu,Eve"


def test_a_quoted_name_with_a_line_break_and_no_further_record_is_still_imported(client, web, course):
    web.login(client, course["teacher"])
    status, page = import_page(client, b'email,name\nli@example.edu,"Li\nWei"\nok@example.edu,Ok\n', "en")
    assert status == 200 and names()["li@example.edu"] == "Li Wei" and names()["ok@example.edu"] == "Ok"
    assert 'id="skipped"' not in page


def test_a_name_with_a_line_break_and_a_comma_is_no_unclosed_quote():
    from app.roster import _swallowed

    assert not _swallowed(["w@example.edu", "Wang\nFang, Jr."], ",")
    assert not _swallowed(["w@example.edu", "Wang\nmail: w@home.example"], ",")
    assert _swallowed(["x@example.edu", "Bob\nc@example.edu,Carl\n"], ",")
    assert _swallowed(["x@example.edu", "Bob\r\n\"c@example.edu\";Carl"], ";")
