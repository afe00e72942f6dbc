"""Round 26: a file name whose extension only looks different is read as the extension it looks like.

A Chinese or Japanese input method types 。 (or the full-width ．) for ".", and full-width letters when
left in full-width mode; Windows opens "attention.py." as attention.py. Such names were refused with
"got 'no extension'" (and advice about hidden extensions), "got '.ｐｙ'" or "got '.'": an extension the
student reads as the one asked for."""

from __future__ import annotations

import io

import pytest

from app.extensions import db
from app.models import Submission
from grading.inputs import InputError, validate_audit, validate_code
from tests.web.helpers import AUDIT_MD, GOOD_CODE, png_bytes
from tests.web.test_api import upload

LOOK_ALIKE_PY = ["attention。py", "attention．py", "attention｡py", "attention.ｐｙ", "ａｔｔｅｎｔｉｏｎ．ｐｙ",
                 "attention.py.", "attention.py. ", "attention.py\u200b", "attention。py.txt"]


@pytest.mark.parametrize("name", LOOK_ALIKE_PY)
def test_code_named_with_a_look_alike_of_py_is_read(name):
    assert validate_code(name, GOOD_CODE).startswith("import math")


@pytest.mark.parametrize("name", ["audit。md", "audit．ｔｘｔ", "audit.md.", "审计报告。md"])
def test_an_audit_named_with_a_look_alike_of_its_extension_is_read(name):
    assert "热力图" in validate_audit(name, AUDIT_MD)


@pytest.mark.parametrize("name, shown", [("attention.pyw", ".pyw"), ("attention.py~", ".py~"),
                                         ("attention。txt", ".txt"), ("attention", "no extension")])
def test_other_extensions_are_still_refused_naming_what_was_read(name, shown):
    with pytest.raises(InputError) as caught:
        validate_code(name, GOOD_CODE)
    assert caught.value.code == "code_bad_type" and f"'{shown}'" in caught.value.en


def test_a_submission_named_by_an_input_method_is_accepted_through_the_api(client, factory, course):
    token = factory.token(course["alice"])
    resp = upload(client, token, filename="attention。py", audit=(io.BytesIO(AUDIT_MD), "audit．md"),
                  figure=(io.BytesIO(png_bytes()), "heatmap。png"))
    assert resp.status_code == 202, resp.json
    sub = db.session.get(Submission, resp.json["id"])
    assert sub.code_filename == "attention。py"    # the name stays the label the student chose
    assert sub.audit_filename == "audit．md" and sub.figure_filename == "heatmap。png"
