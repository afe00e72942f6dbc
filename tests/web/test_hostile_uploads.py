"""Hostile audits and figures cost the web seconds, not minutes: the cheap policy checks come before
any decoding, decoding runs in a limited child, a refusal says why in both languages, and the
audit text is extracted once at upload (page views never parse an upload again)."""

from __future__ import annotations

import importlib.util
import io
import time
from pathlib import Path

import pytest

from app.extensions import db
from app.models import Submission
from autograder import settings
from tests.web.helpers import GOOD_CODE, png_bytes
from tests.web.test_api import upload

_spec = importlib.util.spec_from_file_location(
    "hostile_files", Path(__file__).resolve().parent.parent / "audit" / "hostile_files.py")
hostile = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hostile)

AUDIT_LINE = "The heatmap does not prove that key 1 causes the output."


@pytest.fixture(autouse=True)
def _decoder_started():
    from grading.decode import warm

    warm()


def test_a_student_at_the_pending_cap_is_refused_before_any_decoding(client, factory, course, app, monkeypatch):
    app.config["MAX_PENDING_PER_STUDENT"] = 1
    token = factory.token(course["alice"])
    assert upload(client, token).status_code == 202

    def no_decoding(*args, **kwargs):
        raise AssertionError("an upload over the pending cap was decoded")

    monkeypatch.setattr("grading.decode.run_bounded", no_decoding)
    audit, figure = hostile.pdf_with_costly_page(), hostile.progressive_jpeg_with_repeated_scan(repeats=2000)
    # The CPU of this thread (the test client serves the request in it), not the wall: on a host loaded ~14 deep
    # the same refusal took 1.09 s of wall (a durations run, stop 46); the decoders it skips cost seconds.
    t0 = time.thread_time()
    resp = upload(client, token, audit=(io.BytesIO(audit), "audit.pdf"), figure=(io.BytesIO(figure), "f.jpg"))
    assert resp.status_code == 429 and resp.json["code"] == "too_many_pending"
    spent = time.thread_time() - t0
    print(f"refused at the cap in {spent:.3f} s of CPU")
    assert spent < 0.5, f"{spent:.2f} s"


def test_a_pdf_that_costs_seconds_per_page_is_refused_with_a_bilingual_reason(client, factory, course,
                                                                               monkeypatch):
    monkeypatch.setattr(settings, "DECODE_CPU_S", 1)
    token = factory.token(course["alice"])
    t0 = time.perf_counter()
    resp = upload(client, token, audit=(io.BytesIO(hostile.pdf_with_costly_page()), "audit.pdf"))
    elapsed = time.perf_counter() - t0
    assert resp.status_code == 422, resp.json
    assert resp.json["code"] == "audit_too_costly"
    assert ".md" in resp.json["message"]["en"] and "请改为上传" in resp.json["message"]["zh"]
    assert elapsed < settings.DECODE_WALL_S + 2
    assert db.session.query(Submission).count() == 0, "nothing is stored after a refusal"


def test_a_jpeg_with_thousands_of_scans_is_refused_in_milliseconds(client, factory, course):
    token = factory.token(course["alice"])
    figure = hostile.progressive_jpeg_with_repeated_scan(repeats=40_000)
    t0 = time.perf_counter()
    resp = upload(client, token, figure=(io.BytesIO(figure), "heatmap.jpg"))
    assert resp.status_code == 422 and resp.json["code"] == "figure_too_complex"
    assert "扫描段" in resp.json["message"]["zh"]
    assert time.perf_counter() - t0 < 1.0


def _upload_pdf_audit(client, factory, course, monkeypatch) -> Submission:
    token = factory.token(course["alice"])
    resp = upload(client, token, audit=(io.BytesIO(hostile.pdf_with_text([AUDIT_LINE])), "audit.pdf"),
                  figure=(io.BytesIO(png_bytes()), "f.png"))
    assert resp.status_code == 202, resp.json
    sub = db.session.get(Submission, resp.json["id"])
    assert AUDIT_LINE in sub.audit_text

    def no_parsing(*args, **kwargs):
        raise AssertionError("a page view parsed an upload")

    for name in ("grading.decode.run_bounded", "grading.inputs.extract_audit", "grading.inputs.validate_audit",
                 "grading.inputs.validate_figure"):
        monkeypatch.setattr(name, no_parsing)
    return sub


def test_the_audit_text_is_extracted_once_and_the_students_page_never_parses_it(client, factory, course, web,
                                                                                 monkeypatch):
    sub = _upload_pdf_audit(client, factory, course, monkeypatch)
    web.login(client, course["alice"])
    page = client.get(f"/submissions/{sub.id}")
    assert page.status_code == 200 and AUDIT_LINE in page.get_data(as_text=True)


def test_the_instructors_student_page_shows_the_stored_audit_text_without_parsing(client, factory, course, web,
                                                                                   monkeypatch):
    _upload_pdf_audit(client, factory, course, monkeypatch)
    web.login(client, course["teacher"])
    page = client.get(f"/instructor/students/{course['alice'].id}")
    assert page.status_code == 200 and AUDIT_LINE in page.get_data(as_text=True)


def test_code_alone_is_not_slowed_by_the_decoder(client, factory, course):
    token = factory.token(course["alice"])
    t0 = time.perf_counter()
    assert upload(client, token, code=GOOD_CODE).status_code == 202
    assert time.perf_counter() - t0 < 1.0


@pytest.mark.parametrize("text", ["[" * 200_000, "[a](" * 60_000, "<a " * 80_000, "*_" * 100_000,
                                  "> " * 50_000 + "x", "|a" * 20_000 + "\n" + "|-" * 20_000 + "\n" + "|x" * 20_000,
                                  "<dl/>" * 20_000, "<div></x>" * 11_111, "<b>" * 60_000],
                         ids=["open_brackets", "open_links", "open_tags", "emphasis", "quotes", "wide_table",
                              "self_closing_blocks", "stray_end_tags", "unclosed_inline"])
def test_an_audit_renders_in_bounded_time_whatever_its_markdown(text):
    # Every page view renders the audit: Python-Markdown took 73 s on 20,000 "[" and 137 s on "[a]("
    # repeated, and nh3's parser is quadratic in nesting (20,000 "<dl/>" nest: 1.8 s a view).
    from app.views_helpers import _rendered, render_markdown

    _rendered.cache_clear()
    started = time.process_time()
    html = render_markdown(text)
    assert time.process_time() - started < 2.0
    assert html


HIDING = {
    "script": "<script>SECRET</script>", "style": "<style>SECRET</style>", "template": "<template>SECRET</template>",
    "svg": "<svg><text>SECRET</text></svg>", "math": "<math><mi>SECRET</mi></math>", "comment": "<!-- SECRET -->",
    "cdata": "<![CDATA[SECRET]]>", "image_alt": "![SECRET](x.png)", "link_target": "[shown](http://SECRET.example)",
    "hidden_attribute": "<b hidden>SECRET</b>",
}


@pytest.mark.parametrize("part", HIDING.values(), ids=HIDING.keys())
def test_the_audit_checker_reads_nothing_the_rendered_page_hides(part):
    import re

    from app.views_helpers import render_markdown
    from rubric.audit.text import visible

    text = f"# Audit\n\nThe heatmap shows weights.\n\n{part}\n\nRows sum to one.\n"
    page = re.sub(r"<[^>]+>", " ", str(render_markdown(text)))
    read = visible(text)
    for word in re.findall(r"[A-Za-z]+", read):
        assert word in page, (word, read, page)
    assert "SECRET" not in read


@pytest.mark.parametrize("code", ["(" * 250_000, "a." * 120_000, "+-*/" * 60_000],
                         ids=["brackets", "dotted", "operators"])
def test_the_instructor_s_code_view_renders_any_upload_in_bounded_time(code):
    from app.instructor import highlight

    started = time.process_time()
    html = str(highlight(code))
    assert time.process_time() - started < 0.5       # 2.5 s of Pygments' Python lexer before
    assert "hl" in html and len(html) > len(code)    # still shown, with line numbers


def test_the_instructor_s_code_view_highlights_real_submissions():
    from app.instructor import highlight

    assert '<span class="kn">import</span>' in str(highlight(GOOD_CODE.decode()))


def test_a_nul_or_half_an_emoji_in_any_request_value_is_a_400_not_a_500(client, factory, course, web, app):
    # PostgreSQL refuses a NUL in any text parameter: /assignments/a%00b was a 500, as were a dozen
    # instructor filters and the API's assignment field.
    from tests.web.test_api import bearer

    app.config["PROPAGATE_EXCEPTIONS"] = False
    token = factory.token(course["alice"])
    r = upload(client, token, assignment="a\x00b")
    assert r.status_code == 400 and r.json["code"] == "bad_characters" and r.json["message"]["zh"]
    teacher = factory.token(course["teacher"])
    for url in ("/api/v1/gradebook?assignment=a%00b", "/api/v1/similarity?assignment=a%00b"):
        assert client.get(url, headers=bearer(teacher)).status_code == 400, url
    web.login(client, course["teacher"])
    for url in ("/instructor/?a=x%00y", "/instructor/log?kind=x%00y", "/instructor/roster?q=x%00y",
                "/instructor/gradebook.csv?a=x%00", "/instructor/similarity?a=%00", "/assignments/a%00b"):
        assert client.get(url).status_code == 400, url
    assert client.post("/instructor/extensions", data={"student": "a\x00b", "extra_days": "1"}).status_code == 400
    assert client.get("/instructor/?q=ordinary").status_code == 200


# --- the decoder's slots: busy is the server's state, said as such ---------------------------------


@pytest.fixture
def one_slot_taken(monkeypatch):
    """One decode slot per process, no place to wait, and another upload decoding in it."""
    from grading import decode

    monkeypatch.setattr(settings, "DECODE_SLOTS", 1)
    monkeypatch.setattr(settings, "DECODE_QUEUE", 0)
    with decode.slots().held("audit", 0):
        yield


def test_an_api_upload_that_gets_no_decode_slot_is_a_503_busy_with_retry_after_and_stores_nothing(
        limited_app, factory, course, one_slot_taken):
    # limited_app: the rate limiter is on, and its own Retry-After (its window's reset, 60 s) must
    # not replace the decoder's.
    client = limited_app.test_client()
    token = factory.token(course["alice"])
    t0 = time.perf_counter()
    resp = upload(client, token, audit=(io.BytesIO(hostile.pdf_with_text([AUDIT_LINE])), "audit.pdf"))
    assert time.perf_counter() - t0 < 1.0, "no place to wait: answered at once"
    assert resp.status_code == 503 and resp.json["code"] == "server_busy", resp.json
    assert resp.headers["Retry-After"] == str(round(settings.DECODE_BUSY_RETRY_S))
    assert "not stored" in resp.json["message"]["en"] and "earlier attempts are unchanged" in resp.json["message"]["en"]
    assert "服务器正忙" in resp.json["message"]["zh"] and "没有保存" in resp.json["message"]["zh"]
    assert db.session.query(Submission).count() == 0


def test_a_form_upload_that_gets_no_decode_slot_shows_the_busy_page_with_the_wait(client, web, course,
                                                                                   one_slot_taken):
    web.login(client, course["alice"])
    resp = client.post("/assignments/attention/submit", content_type="multipart/form-data", data={
        "code": (io.BytesIO(GOOD_CODE), "attention.py"),
        "audit": (io.BytesIO(hostile.pdf_with_text([AUDIT_LINE])), "audit.pdf")})
    assert resp.status_code == 503 and resp.headers["Retry-After"] == str(round(settings.DECODE_BUSY_RETRY_S))
    assert "服务器正忙" in resp.get_data(as_text=True)
    assert db.session.query(Submission).count() == 0
