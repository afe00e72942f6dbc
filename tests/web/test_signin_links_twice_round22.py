"""Sign-in links sent twice from one rendering of the roster page (a double click on "Links for every
student without a password": the browser downloads both answers) are the same links, all usable.
Before, the second answer ended every link of the first file, which the instructor may well have
mailed: each student got "link expired". A new rendering still issues new links and ends the old."""

from __future__ import annotations

import csv
import io
import re

from tests.web.test_course_management import forget_cached_user, switch


def _roster_with_new_students(client, web, course) -> str:
    switch(client, web, course["teacher"])
    body = "email,name\nnew1@example.edu,新同学一\nnew2@example.edu,新同学二\n".encode()
    client.post("/instructor/roster", data={"csv": (io.BytesIO(body), "r.csv")}, content_type="multipart/form-data")
    return client.get("/instructor/roster").get_data(as_text=True)


def _form(page: str) -> dict:
    """The fields of the page's 'every student without a password' form."""
    block = next(f for f in re.findall(r'<form method="post" action="/instructor/roster/links">(.*?)</form>',
                                       page, re.S) if "no_password" in f)
    return dict(re.findall(r'name="([^"]+)" value="([^"]*)"', block))


def _links(resp) -> dict[str, str]:
    rows = list(csv.reader(io.StringIO(resp.data.decode("utf-8-sig"))))
    return {r[0]: r[2].rsplit("/", 1)[-1] for r in rows[1:]}


def test_the_same_form_sent_twice_answers_the_same_usable_links(app, client, web, course):
    form = _form(_roster_with_new_students(client, web, course))
    assert form.get("form_token")
    first = _links(client.post("/instructor/roster/links", data=form))
    second = _links(client.post("/instructor/roster/links", data=form))
    assert set(first) == {"new1@example.edu", "new2@example.edu"}
    assert first == second
    visitor = app.test_client()
    assert visitor.get(f"/signin/{first['new1@example.edu']}").status_code == 200
    assert visitor.post(f"/signin/{first['new1@example.edu']}").status_code == 302
    forget_cached_user()


def test_a_new_rendering_still_issues_new_links_and_ends_the_old(app, client, web, course):
    page = _roster_with_new_students(client, web, course)
    old = _links(client.post("/instructor/roster/links", data=_form(page)))
    new = _links(client.post("/instructor/roster/links", data=_form(client.get("/instructor/roster").get_data(as_text=True))))
    assert old["new2@example.edu"] != new["new2@example.edu"]
    assert app.test_client().get(f"/signin/{old['new2@example.edu']}").status_code == 410
    assert app.test_client().get(f"/signin/{new['new2@example.edu']}").status_code == 200


def test_after_a_link_was_used_the_same_form_gives_that_student_a_new_one(app, client, web, course):
    form = _form(_roster_with_new_students(client, web, course))
    first = _links(client.post("/instructor/roster/links", data=form))
    assert app.test_client().post(f"/signin/{first['new1@example.edu']}").status_code == 302
    forget_cached_user()
    again = _links(client.post("/instructor/roster/links", data=form | {"who": "no_password"}))
    # new1 signed in and has no password yet: still listed, with a new link; new2 keeps theirs
    assert again["new1@example.edu"] != first["new1@example.edu"]
    assert again["new2@example.edu"] == first["new2@example.edu"]
