"""Every download names its file in a Content-Disposition any client can read and no name can break.

Round 29: the gradebook exports (page and API) and the sign-in links wrote the file name raw into
`filename="..."`: an assignment slug with a quote ended the parameter and added others (`x=1`), and a
Chinese slug put characters into the header that are not Latin-1, which a WSGI server cannot send (the
export failed). The student's own files had only `filename*`, which curl -OJ does not read."""

from __future__ import annotations

from werkzeug.http import parse_options_header

from app.gradebook import EXPORT_FORMATS
from tests.web.helpers import AUDIT_MD, GOOD_CODE, png_bytes

SLUG = '注意力"; x=1'


def read(header: str) -> tuple[str, dict[str, str], str]:
    """(disposition, parameters with filename* decoded, the ASCII fallback) of a header a server can send."""
    header.encode("latin-1")  # what gunicorn does with every header value
    assert "\r" not in header and "\n" not in header
    kind, params = parse_options_header(header)
    fallback = parse_options_header(header.split("; filename*=")[0])[1]["filename"]
    assert fallback.isascii() and '"' not in fallback and "\\" not in fallback
    return kind, params, fallback


def test_an_export_of_an_assignment_with_a_quote_and_chinese_in_its_slug_keeps_its_name(client, web, factory, course):
    factory.assignment(SLUG)
    web.login(client, course["teacher"])
    for fmt_name in EXPORT_FORMATS:
        resp = client.get("/instructor/gradebook.csv", query_string={"a": SLUG, "format": fmt_name})
        assert resp.status_code == 200
        kind, params, fallback = read(resp.headers["Content-Disposition"])
        assert kind == "attachment" and set(params) == {"filename"}, params
        ext = ".xlsx" if fmt_name == "xlsx" else ".csv"
        assert SLUG in params["filename"] and params["filename"].endswith(ext)
        assert fallback.endswith(ext)


def test_the_api_export_of_such_an_assignment_too(client, factory, course):
    factory.assignment(SLUG)
    token = factory.token(course["teacher"])
    resp = client.get("/api/v1/gradebook", query_string={"assignment": SLUG, "format": "csv"},
                      headers={"Authorization": f"Bearer {token}"})
    assert resp.status_code == 200
    kind, params, _fallback = read(resp.headers["Content-Disposition"])
    assert kind == "attachment" and set(params) == {"filename"} and params["filename"] == f"gradebook-{SLUG}.csv"


NAMES = {"code": "注意力 v2.py", "audit": "审计报告.md", "figure": "热力图.png"}


def test_a_students_chinese_file_names_come_back_with_an_ascii_fallback_and_ascii_ones_as_they_are(
        app, client, web, course):
    from app.storage import BlobStore
    from app.submitting import Upload, submit

    sub = submit(course["assignment"], course["alice"], Upload(NAMES["code"], GOOD_CODE),
                 Upload(NAMES["audit"], AUDIT_MD), Upload(NAMES["figure"], png_bytes((20, 20))),
                 store=BlobStore(app.config["UPLOAD_DIR"]), max_pending=0)
    plain = web.submit(course["alice"], course["assignment"], audit=False, figure=False)
    web.login(client, course["alice"])
    for what, name in NAMES.items():
        resp = client.get(f"/submissions/{sub.id}/{what}")
        assert resp.status_code == 200
        kind, params, fallback = read(resp.headers["Content-Disposition"])
        assert kind == ("inline" if what == "figure" else "attachment") and params["filename"] == name
        assert fallback.rsplit(".", 1)[1] == name.rsplit(".", 1)[1]
    assert client.get(f"/submissions/{plain.id}/code").headers["Content-Disposition"] == 'attachment; filename="attention.py"'
