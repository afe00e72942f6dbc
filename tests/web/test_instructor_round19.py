"""Round 19: an instructor's regrade confirmation sent twice queues one batch.

Confirming "Queue 40 run(s)" with a double click, or the browser resending the POST, queued two
batches: every run twice, twice the graders' time at the worst moment (after a broken test is
fixed, for the whole class). The confirmation page carries a token per rendering; the batch keeps
it, and the same page confirmed again shows the first batch.
"""

from __future__ import annotations

import re
import threading

import pytest

from app.extensions import db
from app.models import GradingRun, RegradeBatch


def confirmation(client, **data) -> dict:
    page = client.post("/instructor/regrade", data=data).get_data(as_text=True)
    form = {**data, "confirm": re.search(r'name="confirm" value="(\d+)"', page).group(1)}
    token = re.search(r'name="form_token" value="([^"]+)"', page)
    if token:
        form["form_token"] = token.group(1)
    return form


def runs() -> int:
    db.session.expire_all()
    return db.session.query(GradingRun).count()


@pytest.mark.parametrize("lang, said", [
    ("en", "This regrade was already queued as batch {b}: the confirmation was sent twice and queued once."),
    ("zh", "这次重新评分已作为第 {b} 批排队：确认被发送了两次，只排队一次。"),
])
def test_a_regrade_confirmed_twice_queues_one_batch_and_says_so(client, web, course, lang, said):
    for student in (course["alice"], course["bob"]):
        web.grade(web.submit(student))
    web.login(client, course["teacher"])
    client.get(f"/lang/{lang}")
    form = confirmation(client, scope="all")
    first = client.post("/instructor/regrade", data=form)
    again = client.post("/instructor/regrade", data=form)
    assert first.status_code == again.status_code == 302
    assert again.headers["Location"] == first.headers["Location"]
    batch = db.session.query(RegradeBatch).one()
    assert runs() == 4  # two first runs and one regrade each
    page = client.get(again.headers["Location"]).get_data(as_text=True)
    assert said.format(b=batch.id) in page


def test_two_confirmations_of_one_page_at_the_same_moment_queue_one_batch(app, client, web, course):
    for student in (course["alice"], course["bob"]):
        web.grade(web.submit(student))
    web.login(client, course["teacher"])
    form = confirmation(client, scope="all")
    cookie = client.get_cookie("session")
    start, answers = threading.Barrier(2), []

    def confirm() -> None:
        with app.app_context():
            c = app.test_client()
            c.set_cookie("session", cookie.value)
            start.wait()
            answers.append(c.post("/instructor/regrade", data=form))

    threads = [threading.Thread(target=confirm) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert [r.status_code for r in answers] == [302, 302]
    assert len({r.headers["Location"] for r in answers}) == 1
    assert db.session.query(RegradeBatch).count() == 1 and runs() == 4


def test_each_confirmation_page_is_its_own_regrade(client, web, course):
    # Asking again (a new page) is a new decision: it queues a new batch, as before.
    web.grade(web.submit(course["alice"]))
    web.login(client, course["teacher"])
    for _ in range(2):
        assert client.post("/instructor/regrade", data=confirmation(client, scope="all")).status_code == 302
    assert db.session.query(RegradeBatch).count() == 2 and runs() == 3


def test_an_api_regrade_retried_with_its_idempotency_key_queues_one_batch(client, web, course):
    from tests.web.test_api import bearer

    for student in (course["alice"], course["bob"]):
        web.grade(web.submit(student))
    headers = bearer(web.f.token(course["teacher"])) | {"Idempotency-Key": "regrade-after-fix-1"}
    first = client.post("/api/v1/regrades", json={"scope": "all"}, headers=headers)
    again = client.post("/api/v1/regrades", json={"scope": "all"}, headers=headers)
    assert first.status_code == again.status_code == 202
    assert again.json["batch"] == first.json["batch"] and again.json["replayed"] is True
    assert again.headers["Idempotent-Replayed"] == "true" and first.json["replayed"] is False
    assert db.session.query(RegradeBatch).count() == 1 and runs() == 4
    other = client.post("/api/v1/regrades", json={"scope": "student", "student": course["bob"].email},
                        headers=headers)
    assert other.status_code == 422 and other.json["code"] == "idempotency_key_reused"
    assert f"batch {first.json['batch']}" in other.json["message"]["en"] and "批" in other.json["message"]["zh"]
    bad = client.post("/api/v1/regrades", json={"scope": "all"}, headers=headers | {"Idempotency-Key": "é" * 3})
    assert bad.status_code == 400 and bad.json["code"] == "bad_idempotency_key"
    # without a key, or with a new one, a regrade is a new batch as before
    assert client.post("/api/v1/regrades", json={"scope": "all"}, headers=bearer(web.f.token(course["teacher"]))
                       ).status_code == 202
    assert db.session.query(RegradeBatch).count() == 2 and runs() == 6
