"""Specification of the instructor-editable checklist (rubric/attention/audit.yaml): it is valid, follows
the lab, and edits take effect without code changes; mistakes are reported with the item that is wrong."""

from __future__ import annotations

import copy
import re

import pytest
import yaml

from rubric.audit import DEFAULT_CHECKLIST_PATH, ChecklistError, grade_audit, load_checklist

CJK = re.compile(r"[\u4e00-\u9fff]")


def test_shipped_checklist_is_worth_15_points_in_five_items(checklist):
    assert checklist.source["max_points"] == 15
    weights = {it["id"]: it["weight"] for it in checklist.source["items"]}
    assert weights == {"figure": 2, "figure_reading": 3, "limits": 4, "parity": 3, "experiments": 3}


def test_every_label_and_feedback_is_bilingual(checklist):
    for it in checklist.source["items"]:
        for key in ("label", "feedback_missing"):
            assert it[key]["en"] and not CJK.search(it[key]["en"]), (it["id"], key)
            assert CJK.search(it[key]["zh"]), (it["id"], key)
        for c in it.get("concepts", []):
            assert c["label"]["en"] and c["label"]["zh"], c["id"]


def test_items_follow_the_lab_text(checklist):
    """Thresholds are the lab's (section 5) and the experiments are A-C of section 6."""
    assert checklist.source["metrics"]["max_abs_error"]["threshold"] == 1e-5
    assert checklist.source["metrics"]["row_sum_error"]["threshold"] == 1e-6
    concepts = {c["id"] for it in checklist.source["items"] for c in it.get("concepts", [])}
    assert {"rows_queries", "row_sum_one", "masked_zero", "reading_budget", "not_causal", "not_importance",
            "not_mechanism", "max_abs_error_reported", "row_sum_error_reported", "mask_audit", "scale_entropy",
            "padding", "query_count"} <= concepts
    limits = next(it for it in checklist.source["items"] if it["id"] == "limits")
    assert all(c.get("mode") == "caveat" for c in limits["concepts"])


def test_load_checklist_defaults_to_the_attention_yaml():
    assert DEFAULT_CHECKLIST_PATH.name == "audit.yaml" and DEFAULT_CHECKLIST_PATH.parent.name == "attention"
    assert load_checklist(DEFAULT_CHECKLIST_PATH) == load_checklist()


def _edited(checklist, tmp_path, edit):
    data = copy.deepcopy(checklist.source)
    edit(data)
    path = tmp_path / "audit.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    _with_handout(tmp_path)
    return load_checklist(path)


def _with_handout(directory):
    """The checklist names its handout files (and the rubric whose texts it treats as the grader's own
    words) relative to itself."""
    for name in ("handout", "rubric.yaml"):
        link = directory / name
        if not link.exists():
            link.symlink_to(DEFAULT_CHECKLIST_PATH.parent / name)


def test_instructor_can_reweight_items_without_code(checklist, tmp_path):
    def edit(d):
        d["max_points"] = 20
        next(it for it in d["items"] if it["id"] == "limits")["weight"] = 9
    cl = _edited(checklist, tmp_path, edit)
    r = grade_audit("这张热力图不能说明因果关系，高权重也并不等于 feature importance。", None, {}, cl)
    assert r["max"] == 20
    assert next(it for it in r["items"] if it["id"] == "limits")["max_points"] == 9


def test_instructor_can_add_a_phrase(checklist, tmp_path):
    sentence = "The plot is a picture of routing coefficients and we refuse to call it a causal story here."
    before = grade_audit(sentence, None, {}, checklist)
    assert next(it for it in before["items"] if it["id"] == "limits")["points"] == 0   # "refuse" is no cue

    cl = _edited(checklist, tmp_path, lambda d: d["cues"]["caveat"]["en"].append("refuse to"))
    after = grade_audit(sentence, None, {}, cl)
    assert next(it for it in after["items"] if it["id"] == "limits")["points"] > 0


def test_literal_phrases_match_whole_words_and_any_separator(checklist, tmp_path):
    """'row sum' matches row_sum / row-sum; 'no' does not match inside 'not' or 'know'."""
    from rubric.audit.checklist import _compile_group

    g = _compile_group({"en": ["row sum", "no"]}, "test")
    for text in ("the row_sum_error is small", "row-sum", "rowsum", "row  sum"):
        assert g.search(text), text
    for text in ("i know nothing", "notably"):
        assert not g.search(text), text


@pytest.mark.parametrize("edit, message", [
    (lambda d: d["items"][0].update(weight=5), "add up to"),
    (lambda d: d["items"][1]["concepts"][0]["phrases"]["en"].append("re:(unclosed"), "rows_queries"),
    (lambda d: d["items"][1]["concepts"][0]["phrases"]["en"].append(False), "quote them"),
    (lambda d: d["items"][1]["label"].pop("zh"), "figure_reading"),
    (lambda d: d["items"][3]["concepts"][0].update(metric="nope"), "unknown metric"),
    (lambda d: d["overclaims"].update(deduct_from=["nope"]), "deduct_from"),
    (lambda d: d["items"].append(dict(d["items"][0])), "duplicate"),
    (lambda d: d["items"][2]["concepts"][0].update(mode="maybe"), "mode"),
])
def test_broken_checklist_is_refused_with_a_pointer_to_the_problem(checklist, tmp_path, edit, message):
    with pytest.raises(ChecklistError, match=re.escape(message)):
        _edited(checklist, tmp_path, edit)


def test_unquoted_yaml_no_is_explained(tmp_path):
    """YAML 1.1 reads a bare `no` as False: the error says so instead of failing obscurely."""
    text = DEFAULT_CHECKLIST_PATH.read_text(encoding="utf-8").replace("'no',", "no,", 1)
    assert text != DEFAULT_CHECKLIST_PATH.read_text(encoding="utf-8")
    path = tmp_path / "audit.yaml"
    path.write_text(text, encoding="utf-8")
    _with_handout(tmp_path)
    with pytest.raises(ChecklistError, match="booleans"):
        load_checklist(path)
