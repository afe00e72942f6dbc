"""Round 22: the instructor's list of an attempt's overrides names an overridden category in the
reader's language, as the student's result page and the override form's own options do; it printed
the stored key (mask_parity) on zh and en pages."""

from __future__ import annotations

import re

import pytest

from tests.helpers import rubric_result


@pytest.mark.parametrize("lang, label", [("en", "Mask and reference parity"), ("zh", "mask 与 parity 测试")])
def test_category_override_is_named_in_the_readers_language(client, web, course, lang, label):
    sub = web.submit(course["alice"], course["assignment"])
    web.grade(sub, rubric_result("attention", {"test_blocked_key_gets_zero_weight"}))
    web.login(client, course["teacher"])
    client.get(f"/lang/{lang}")
    assert client.post(f"/instructor/submissions/{sub.id}/override",
                       data={"target": "category:mask_parity", "points": "30", "comment": "旧的 mask 测试有误",
                             "seen": "0"}).status_code == 302
    html = client.get(f"/instructor/students/{course['alice'].id}").get_data(as_text=True)
    table = html.split('class="override-list"', 1)[1].split("</table>", 1)[0]
    first = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", re.findall(r"<td>(.*?)</td>", table, re.S)[0])).strip()
    assert first.startswith(label) and "mask_parity" not in first, first
