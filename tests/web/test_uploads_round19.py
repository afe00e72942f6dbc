"""Round 19: a double-sent upload is one attempt.

A double click, a browser resending a form, or an API client retrying after a timeout sent the same
upload twice and made two attempts (two of the three pending slots, and the retry could be refused
by the cooldown the first send started). The form carries a per-render token, the API an
`Idempotency-Key` header; the second send gets the first send's attempt back.
"""

from __future__ import annotations

import io
import re
import threading

import pytest

from app.extensions import db
from app.models import GradingRun, Submission
from tests.audit.helpers import make_heatmap
from tests.web.helpers import GOOD_CODE
from tests.web.test_api import bearer

AUDIT_LINE = "The heatmap does not prove that key 1 causes the output."
OTHER_CODE = GOOD_CODE + b"\n# fixed a comment\n"


def send(client, token: str, key: str | None = None, code: bytes = GOOD_CODE, **files):
    data = {"code": (io.BytesIO(code), "attention.py")}
    data.update({name: (io.BytesIO(body), filename) for name, (body, filename) in files.items()})
    headers = bearer(token) | ({"Idempotency-Key": key} if key is not None else {})
    return client.post("/api/v1/submissions", data=data, headers=headers, content_type="multipart/form-data")


def attempts() -> list[tuple[int, int]]:
    db.session.expire_all()
    return sorted((s.student_id, s.attempt) for s in db.session.query(Submission))


# --- the API ----------------------------------------------------------------------------------------


def test_a_retried_api_upload_with_its_idempotency_key_gets_the_first_attempt_back(client, factory, course):
    token = factory.token(course["alice"])
    first = send(client, token, "8e03978e-40d5-43e8-bc93-6894a57f9324")
    again = send(client, token, "8e03978e-40d5-43e8-bc93-6894a57f9324")
    assert first.status_code == again.status_code == 202
    assert again.json["id"] == first.json["id"] and again.json["attempt"] == 1
    assert first.json["replayed"] is False and again.json["replayed"] is True
    assert again.headers["Idempotent-Replayed"] == "true" and "Idempotent-Replayed" not in first.headers
    assert again.headers["Location"] == first.headers["Location"]
    assert attempts() == [(course["alice"].id, 1)]
    assert db.session.query(GradingRun).count() == 1  # graded once


def test_a_structured_field_string_key_is_the_same_key_as_the_bare_one(client, factory, course):
    token = factory.token(course["alice"])
    first = send(client, token, "retry-1")
    again = send(client, token, '"retry-1"')
    assert again.json["id"] == first.json["id"] and again.json["replayed"] is True


def test_a_retry_is_not_refused_by_the_cooldown_or_the_pending_cap_its_first_send_caused(
        app, client, factory, course):
    token = factory.token(course["alice"])
    course["assignment"].cooldown_seconds = 600
    db.session.commit()
    first = send(client, token, "k-cooldown")
    assert send(client, token, "k-other").status_code == 429  # a new attempt waits, as before
    again = send(client, token, "k-cooldown")
    assert again.status_code == 202 and again.json["id"] == first.json["id"]

    course["assignment"].cooldown_seconds = 0
    db.session.commit()
    ids = [send(client, token, f"k{i}").json["id"] for i in range(2)]  # 3 pending: the cap
    assert send(client, token, "k-fourth").status_code == 429
    assert send(client, token, "k1").json["id"] == ids[1]
    assert len(attempts()) == 3


def test_the_same_key_for_another_upload_is_refused_in_both_languages_and_stores_nothing(
        client, factory, course):
    token = factory.token(course["alice"])
    send(client, token, "k-1")
    for code, files in ((OTHER_CODE, {}), (GOOD_CODE, {"audit": (AUDIT_LINE.encode(), "audit.md")})):
        resp = send(client, token, "k-1", code=code, **files)
        assert resp.status_code == 422 and resp.json["code"] == "idempotency_key_reused"
        assert "attempt 1" in resp.json["message"]["en"] and "第 1 次提交" in resp.json["message"]["zh"]
    assert attempts() == [(course["alice"].id, 1)]


@pytest.mark.parametrize("key", ["x" * 201, "clé-é", "a\tb", 'a"b', '"'])
def test_a_malformed_key_is_refused_before_anything_is_stored(client, factory, course, key):
    token = factory.token(course["alice"])
    resp = send(client, token, key)
    assert resp.status_code == 400 and resp.json["code"] == "bad_idempotency_key"
    assert "Idempotency-Key" in resp.json["message"]["en"] and "Idempotency-Key" in resp.json["message"]["zh"]
    assert attempts() == []


def test_keys_belong_to_one_student_and_uploads_without_a_key_are_separate_attempts(client, factory, course):
    alice, bob = factory.token(course["alice"]), factory.token(course["bob"])
    a, b = send(client, alice, "same-key"), send(client, bob, "same-key")
    assert a.status_code == b.status_code == 202 and a.json["id"] != b.json["id"]
    send(client, alice)
    send(client, alice)
    assert attempts() == sorted([(course["alice"].id, n) for n in (1, 2, 3)] + [(course["bob"].id, 1)])


def test_sends_of_one_key_at_once_with_a_figure_make_one_attempt(app, client, factory, course):
    # Retries that arrive while the first send is being decoded are told it is in progress (409,
    # nothing stored) or, once it is stored, get its attempt back; a last retry gets it too.
    token = factory.token(course["alice"])
    figure, answers = make_heatmap(), []
    start = threading.Barrier(3)

    def one() -> None:
        with app.app_context():
            start.wait()
            r = send(app.test_client(), token, "at-once", audit=(AUDIT_LINE.encode(), "audit.md"),
                     figure=(figure, "heatmap.png"))
            answers.append((r.status_code, r.json.get("id") or r.json.get("code"), r.json.get("replayed")))

    threads = [threading.Thread(target=one) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    made = [a for a in answers if a[0] == 202 and a[2] is False]
    assert len(answers) == 3 and len(made) == 1, answers
    assert all(a in ((202, made[0][1], True), (409, "upload_in_progress", None)) for a in answers if a not in made)
    last = send(client, token, "at-once", audit=(AUDIT_LINE.encode(), "audit.md"), figure=(figure, "heatmap.png"))
    assert last.json["id"] == made[0][1] and last.json["replayed"] is True
    assert attempts() == [(course["alice"].id, 1)]


# --- the form ---------------------------------------------------------------------------------------


def form_token(client) -> str:
    html = client.get("/assignments/attention").get_data(as_text=True)
    return re.search(r'name="form_token" value="([^"]+)"', html).group(1)


def post_form(client, token: str | None, code: bytes = GOOD_CODE, **headers):
    data = {"code": (io.BytesIO(code), "attention.py"), "confirm_no_audit": "1"}
    if token is not None:
        data["form_token"] = token
    return client.post("/assignments/attention/submit", data=data, content_type="multipart/form-data",
                       headers=headers)


def test_each_rendering_of_the_form_has_its_own_token(client, web, course):
    web.login(client, course["alice"])
    assert len({form_token(client) for _ in range(3)}) == 3


@pytest.mark.parametrize("lang, said", [
    ("en", "This upload was already received as attempt 1: it was sent twice"),
    ("zh", "这次上传已作为第 1 次提交收到"),
])
def test_a_form_sent_twice_is_one_attempt_and_the_page_says_so(client, web, course, lang, said):
    web.login(client, course["alice"])
    client.get(f"/lang/{lang}")
    token = form_token(client)
    first = post_form(client, token)
    again = post_form(client, token)
    assert first.status_code == again.status_code == 302
    assert again.headers["Location"] == first.headers["Location"]
    page = client.get(again.headers["Location"]).get_data(as_text=True)
    assert said in page
    assert attempts() == [(course["alice"].id, 1)]


def test_a_background_upload_resent_after_a_lost_answer_goes_to_the_same_attempt(client, web, course):
    # The page's script uploads with fetch; a connection that drops after the server stored the
    # attempt leaves the files chosen and the student presses Submit again.
    web.login(client, course["alice"])
    token = form_token(client)
    first = post_form(client, token, **{"X-Upload": "fetch"})
    again = post_form(client, token, **{"X-Upload": "fetch"})
    assert first.status_code == again.status_code == 201 and again.json == first.json
    assert attempts() == [(course["alice"].id, 1)]


def test_the_same_page_sent_with_other_files_or_without_a_token_is_a_new_attempt(app, client, web, course):
    # The back button shows the page with its old token; the student picks the fixed file.
    app.config["MAX_PENDING_PER_STUDENT"] = 4
    web.login(client, course["alice"])
    token = form_token(client)
    post_form(client, token)
    post_form(client, token, code=OTHER_CODE)
    post_form(client, None)
    post_form(client, "not a token!")
    assert attempts() == [(course["alice"].id, n) for n in (1, 2, 3, 4)]


# --- what one user's uploads may cost others in decoding --------------------------------------------


@pytest.fixture
def costly_pdf() -> bytes:
    """An honest audit PDF whose text extraction costs about a second of CPU (under DECODE_CPU_S)."""
    from tests.web.test_decode_load import valid_audit_pdf

    return valid_audit_pdf(8000)


def _when(condition, timeout: float = 20.0) -> None:
    import time

    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.01)


@pytest.mark.slow  # decodes PDFs costing ~1 s of CPU each, on purpose (3-4 s)
def test_one_student_decoding_in_parallel_holds_one_decode_slot_and_others_still_upload(
        app, factory, course, costly_pdf, monkeypatch):
    # Two decode slots and no queue: a student who sends two costly PDFs at once took both, and the
    # next student's figure was refused 503 "server busy". Now the second is refused at once (429,
    # in both languages, nothing stored) and the other student's upload gets the free slot.
    import time

    from autograder import settings
    from grading import decode

    monkeypatch.setattr(settings, "DECODE_SLOTS", 2)
    monkeypatch.setattr(settings, "DECODE_QUEUE", 0)
    alice, bob = factory.token(course["alice"]), factory.token(course["bob"])
    first: list = []

    def alice_first() -> None:
        with app.app_context():
            first.append(send(app.test_client(), alice, audit=(costly_pdf, "audit.pdf")).status_code)

    thread = threading.Thread(target=alice_first)
    thread.start()
    _when(lambda: decode.slots().running == 1)
    again: list = []

    def alice_again() -> None:
        with app.app_context():
            start = time.monotonic()
            r = send(app.test_client(), alice, code=OTHER_CODE, audit=(costly_pdf, "audit2.pdf"))
            again.append((r, time.monotonic() - start))

    second = threading.Thread(target=alice_again)
    second.start()
    second.join(5)  # refused at once now; before, it held the second slot for a second
    if again:
        resp, wall = again[0]
        assert resp.status_code == 429 and resp.json["code"] == "decode_in_progress", resp.json
        assert "still being checked" in resp.json["message"]["en"] and "仍在检查中" in resp.json["message"]["zh"]
        assert int(resp.headers["Retry-After"]) > 0 and wall < 1.0
    theirs = send(app.test_client(), bob, figure=(make_heatmap(), "heatmap.png"),
                  audit=(AUDIT_LINE.encode(), "audit.md"))
    assert theirs.status_code == 202, theirs.json
    thread.join(30)
    second.join(30)
    assert first == [202] and again and again[0][0].status_code == 429
    assert attempts() == sorted([(course["alice"].id, 1), (course["bob"].id, 1)])


@pytest.mark.slow  # decodes PDFs costing ~1 s of CPU each, on purpose (3-4 s)
def test_the_same_upload_sent_again_while_its_first_send_is_decoding_is_told_so(
        app, client, web, factory, course, costly_pdf):
    token = factory.token(course["alice"])
    answers: list = []

    def first() -> None:
        with app.app_context():
            answers.append(send(app.test_client(), token, "k-pdf", audit=(costly_pdf, "audit.pdf")))

    thread = threading.Thread(target=first)
    thread.start()
    from grading import decode

    _when(lambda: decode.slots().running == 1)
    again = send(client, token, "k-pdf", audit=(costly_pdf, "audit.pdf"))
    assert again.status_code == 409 and again.json["code"] == "upload_in_progress"
    assert "Idempotency-Key" in again.json["message"]["en"] and "第一次仍在检查中" in again.json["message"]["zh"]
    thread.join(30)
    late = send(client, token, "k-pdf", audit=(costly_pdf, "audit.pdf"))
    assert answers[0].status_code == 202 and late.json["id"] == answers[0].json["id"] and late.json["replayed"]
    assert attempts() == [(course["alice"].id, 1)]


@pytest.mark.slow  # decodes PDFs costing ~1 s of CPU each, on purpose (3-4 s)
def test_a_students_decoding_cpu_is_budgeted_and_the_refusal_says_when_to_retry(
        app, client, factory, course, costly_pdf):
    # A PDF at about a second of CPU, sent again and again, cost the web that second every time
    # (up to the submit rate limit, 30 a minute). Now the CPU of a student's decodes is counted:
    # past DECODE_USER_CPU_S in the window, 429 with Retry-After; others and code-only uploads pass.
    app.config.update(DECODE_USER_CPU_S=0.5, DECODE_USER_WINDOW_S=600, MAX_PENDING_PER_STUDENT=10)
    alice, bob = factory.token(course["alice"]), factory.token(course["bob"])
    assert send(client, alice, audit=(costly_pdf, "audit.pdf")).status_code == 202
    for files in ({"audit": (costly_pdf, "audit.pdf")}, {"figure": (make_heatmap(), "heatmap.png")}):
        refused = send(client, alice, code=OTHER_CODE, **files)
        assert refused.status_code == 429 and refused.json["code"] == "decode_budget", refused.json
        assert 0 < int(refused.headers["Retry-After"]) <= 600
        assert "0.5 s of CPU" in refused.json["message"]["en"] and "0.5 秒 CPU" in refused.json["message"]["zh"]
    assert send(client, alice, code=OTHER_CODE).status_code == 202  # code only: nothing to decode
    assert send(client, bob, audit=(costly_pdf, "audit.pdf")).status_code == 202
    assert attempts() == sorted([(course["alice"].id, 1), (course["alice"].id, 2), (course["bob"].id, 1)])


def test_the_cpu_a_decode_used_is_what_is_charged(app):
    # An honest figure costs a few hundredths of a second; a long PDF some tenths: each upload
    # is charged what its decode used (never the limit, unless the child died at it).
    from grading.decode import cpu_meter
    from grading.inputs import validate_audit, validate_figure
    from tests.web.test_decode_load import valid_audit_pdf

    with cpu_meter() as small:
        validate_figure("heatmap.png", make_heatmap())
    with cpu_meter() as big:
        validate_audit("audit.pdf", valid_audit_pdf(2500))  # ~0.4 s of CPU here
    assert 0 < small[0] < big[0] and 0.1 < big[0] < 3.0, (small, big)
