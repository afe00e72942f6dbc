"""Round 29: a GET of the API carries an ETag, and If-None-Match with the current one is a 304 without body.

Scripts poll a submission until it is graded and fetch the gradebook again and again; without a tag each
poll downloaded the whole result (feedback, audit items, weights) even when nothing had changed."""

from __future__ import annotations


def test_a_polled_submission_is_304_until_its_grading_changes_it(client, web, factory, course):
    sub = web.submit(course["alice"], course["assignment"], audit=False, figure=False)
    headers = {"Authorization": f"Bearer {factory.token(course['alice'])}"}
    first = client.get(f"/api/v1/submissions/{sub.id}", headers=headers)
    tag = first.headers["ETag"]
    assert first.status_code == 200 and tag.startswith('"')
    again = client.get(f"/api/v1/submissions/{sub.id}", headers={**headers, "If-None-Match": tag})
    assert again.status_code == 304 and again.data == b"" and again.headers["ETag"] == tag
    head = client.head(f"/api/v1/submissions/{sub.id}", headers={**headers, "If-None-Match": f'"other", W/{tag}'})
    assert head.status_code == 304                      # a list, and the weak form of the same tag
    web.grade(sub)
    graded = client.get(f"/api/v1/submissions/{sub.id}", headers={**headers, "If-None-Match": tag})
    assert graded.status_code == 200 and graded.json["status"] == "graded" and graded.headers["ETag"] != tag


def test_errors_carry_no_tag_and_a_stale_or_odd_tag_gets_the_answer(client, factory, course):
    headers = {"Authorization": f"Bearer {factory.token(course['teacher'])}"}
    missing = client.get("/api/v1/submissions/99", headers={**headers, "If-None-Match": "*"})
    assert missing.status_code == 404 and "ETag" not in missing.headers and missing.json["code"] == "not_found"
    for sent in ('"stale"', "not-a-tag", ""):
        book = client.get("/api/v1/gradebook", headers={**headers, "If-None-Match": sent})
        assert book.status_code == 200 and book.json["assignment"] == "attention" and book.headers["ETag"]


def test_the_description_lists_the_304_of_every_get(client):
    paths = client.get("/api/v1/openapi.json").json["paths"]
    gets = [item["get"] for item in paths.values() if "get" in item]
    assert gets and all("304" in get["responses"] for get in gets)
