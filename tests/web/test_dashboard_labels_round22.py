"""Round 22: the dashboard's status filter says each status in the reader's language, as the
status badges of the same table do. Its options printed the stored keys (none, queued, running,
graded, error) on zh pages, and "none" on en pages where the badge says "no attempt"."""

from __future__ import annotations

import re

import pytest

from app.gradebook import STATUSES

LABELS = {"none": ("no attempt", "未提交"), "queued": ("queued", "排队中"), "running": ("running", "评分中"),
          "graded": ("graded", "已评分"), "error": ("error", "出错")}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_dashboard_status_filter_names_each_status_as_its_badge_does(client, web, course, lang):
    web.login(client, course["teacher"])
    client.get(f"/lang/{lang}")
    html = client.get("/instructor/?status=graded").get_data(as_text=True)
    select = re.search(r'<select name="status">(.*?)</select>', html, re.S).group(1)
    options = dict(re.findall(r'<option value="(\w*)"[^>]*>([^<]*)</option>', select))
    assert set(options) == {"", *map(str, STATUSES)}
    i = 0 if lang == "en" else 1
    # Bob has no attempt: his badge and the filter's option say the same words
    assert f'<span class="badge none">{LABELS["none"][i]}</span>' in client.get("/instructor/").get_data(as_text=True)
    assert {k: v for k, v in options.items() if k} == {k: v[i] for k, v in LABELS.items()}
    assert re.search(r'<option value="graded" selected>', select)
