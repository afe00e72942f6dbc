"""Round 35: a result already shown notices a later regrade.

The result page stopped polling once grading ended, so a student who kept it open saw the old score after the
instructor's regrade until a reload; the API's answer had no field naming the grading shown. Now the page
carries what it shows (the graded run, the total) and the texts to say a newer grading is in (app.js checks the
status once a minute while the tab is shown), and the API's answer carries `graded_run_id`, which a regrade's
result changes together with the ETag.
"""

from __future__ import annotations

import html
import json
import re

import pytest

from app.regrading import request_regrade
from tests.web.helpers import realistic_result
from tests.web.test_api import bearer


def test_the_api_answer_names_the_graded_run_and_a_regrade_changes_it_and_the_etag(client, web, factory, course):
    sub = web.submit(course["alice"], course["assignment"], audit=False, figure=False)
    first_run = web.grade(sub, realistic_result(grader_version="attn-2026.11.1"))
    headers = bearer(factory.token(course["alice"]))
    before = client.get(f"/api/v1/submissions/{sub.id}", headers=headers)
    assert before.json["graded_run_id"] == first_run.id
    tag = before.headers["ETag"]

    run = request_regrade(sub)
    waiting = client.get(f"/api/v1/submissions/{sub.id}", headers={**headers, "If-None-Match": tag})
    # a regrade waits: the status says so, the earlier result is still the one shown
    assert waiting.status_code == 200 and waiting.json["status"] == "queued"
    assert waiting.json["graded_run_id"] == first_run.id and waiting.json["result"] is not None

    web.grade(sub, realistic_result(False, grader_version="attn-2026.12.0"), run=run)
    after = client.get(f"/api/v1/submissions/{sub.id}", headers={**headers, "If-None-Match": waiting.headers["ETag"]})
    assert after.status_code == 200 and after.json["graded_run_id"] == run.id != first_run.id
    assert after.json["grader_version"] == "attn-2026.12.0"


def test_graded_run_id_is_documented():
    from app.openapi import spec

    assert "graded_run_id" in spec()["components"]["schemas"]["Submission"]["properties"]


@pytest.mark.parametrize("lang, regrading, newer", [
    ("en", "This attempt is being graded again: the result below is the earlier grading's until the new one is in.",
     "A newer grading of this attempt is in: the result below is the new one (%total of %max points; it was %was)."),
    ("zh", "这次提交正在重新评分：在新结果出来之前，下面显示的是之前那次评分的结果。",
     "这次提交有了更新的评分：下面显示的是新结果（%total / %max 分；之前是 %was 分）。"),
])
def test_a_graded_result_page_carries_what_it_shows_and_the_texts_of_a_newer_grading(client, web, course, lang,
                                                                                    regrading, newer):
    sub = web.submit(course["alice"], course["assignment"], audit=False, figure=False)
    graded = web.grade(sub)
    page = web.result_pages(client, course["alice"], sub.id)[lang]
    live = re.search(r'<section class="card" id="live"(.*?)>', page, re.S).group(1)
    assert f'data-graded-run="{graded.id}"' in live
    total = re.search(r'data-shown-total="([^"]*)"', live).group(1)
    assert total and float(total) >= 0
    labels = json.loads(html.unescape(re.search(r"data-labels='([^']*)'", live).group(1)))
    assert labels["regrading"] == regrading and labels["newer_grade"] == newer
    assert "%total" in labels["score_changed"] and "%was" in labels["score_changed"]
    assert re.search(r'<p data-newer class="flash newer" role="status" hidden></p>', page)


def test_the_live_script_keeps_watching_a_final_result(client):
    """The script's rule, read from the file served: once final, a slow check is armed, not a stop."""
    js = client.get("/static/app.js").get_data(as_text=True)
    assert "FINAL_CHECK_MS = 60000" in js
    assert "watchFinal();" in js and "stopped = true; return; }  // nothing more changes" not in js
