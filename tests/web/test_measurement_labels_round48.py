"""Round 48, the walk as a zh student: a measurement the pages have no label for (a grader newer than the
web, as masked_weight_max in the browser tests' result) was labelled by its key's words, "masked weight max：",
an English phrase in a zh list. Such a key is shown alone as code; the known ones keep their labels."""

from __future__ import annotations

import re

import pytest

from tests.web.helpers import realistic_result

ITEM = re.compile(r'<li data-measurement="([^"]+)">(.*?)</li>', re.S)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_an_unlabelled_measurement_is_shown_as_its_key_alone(client, web, course, lang):
    result = realistic_result()
    result["measurements"] = {"max_abs_error": 2.1e-07, "masked_weight_max": 0.0}
    sub = web.submit(course["alice"], audit=False, figure=False)
    web.grade(sub, result)
    web.login(client, course["alice"])
    client.get(f"/lang/{lang}")
    items = dict(ITEM.findall(client.get(f"/submissions/{sub.id}").get_data(as_text=True)))
    unknown = items["masked_weight_max"]
    assert "masked weight max" not in unknown
    assert unknown.startswith("<code>masked_weight_max</code>" + ("：" if lang == "zh" else ": ") + "<strong>")
    known = {"zh": "与 PyTorch 参考输出的最大差异：", "en": "Largest difference from PyTorch's reference output: "}
    assert items["max_abs_error"].replace("&#39;", "'").startswith(known[lang])
