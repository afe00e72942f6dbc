"""Round 21: the course log and the roster say what happened and who is who in the reader's
language. The log's kind filter and its "What" column printed stored keys (regrade, override,
drop, sign_in_links, and "regrade: student"), the roster's role column "student"/"instructor",
on zh pages as on en pages."""

from __future__ import annotations

import re

import pytest

from app.course import log
from app.extensions import db

KINDS = {"setting": ("course setting", "课程设置"), "extension": ("extension", "延期"),
         "override": ("override", "分数覆盖"), "drop": ("drop", "退课"), "restore": ("restore", "恢复"),
         "regrade": ("regrade", "重新评分"), "sign_in_links": ("sign-in links", "登录链接")}


def _cells(html: str, attr: str) -> list[str]:
    return [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(rf"<td {attr}>(.*?)</td>", html, re.S)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_course_log_names_each_kind_and_regrade_scope_in_the_readers_language(client, web, course, lang):
    i = 0 if lang == "en" else 1
    teacher, alice = course["teacher"], course["alice"]
    for kind in KINDS:
        log(kind, teacher, student_id=alice.id, subject="student" if kind == "regrade" else "x")
    db.session.commit()
    web.login(client, teacher)
    client.get(f"/lang/{lang}")
    html = client.get("/instructor/log").get_data(as_text=True)
    options = dict(re.findall(r'<option value="(\w+)"[^>]*>([^<]*)</option>', html))
    assert {k: options[k] for k in KINDS} == {k: v[i] for k, v in KINDS.items()}
    what = _cells(html, "data-kind")
    assert sorted(re.split("[:：]", w)[0] for w in what) == sorted(v[i] for v in KINDS.values())  # round 31: zh "："
    regrade = next(w for w in what if w.startswith(KINDS["regrade"][i]))
    assert regrade.endswith(("every attempt of Alice Wang", "Alice Wang 的所有提交")[i]), regrade
    # a kind from a newer release than this template still shows, as stored
    log("future_kind", teacher)
    db.session.commit()
    assert "future_kind" in _cells(client.get("/instructor/log").get_data(as_text=True), "data-kind")


@pytest.mark.parametrize("lang, student, instructor", [("en", "student", "instructor"), ("zh", "学生", "教师")])
def test_roster_role_column_is_in_the_readers_language(client, web, course, lang, student, instructor):
    web.login(client, course["teacher"])
    client.get(f"/lang/{lang}")
    roles = _cells(client.get("/instructor/roster?show=all").get_data(as_text=True), "data-role")
    assert roles and set(roles) == {student, instructor}
