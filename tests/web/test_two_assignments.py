"""Two assignment plug-ins side by side: the attention lab (with an audit) and the course page's
NumPy lab (no audit). Every page, the API and the CSV take categories and points from each
assignment's own rubric."""

from __future__ import annotations

import csv
import io

import pytest

from tests.helpers import rubric_result
from tests.web.helpers import GOOD_CODE, png_bytes

NUMPY_LABELS_EN = ["Stable softmax", "Projections and sqrt(d_k) scale", "Row-stochastic weights and context",
                   "Causal and boolean masks"]
NUMPY_LABELS_ZH = ["数值稳定的 softmax", "投影与 sqrt(d_k) 缩放", "行随机权重与上下文向量", "因果 mask 与布尔 mask"]
NUMPY_CATEGORIES = ["stable_softmax", "scaled_scores", "weights_context", "causal_mask"]
ATTENTION_CATEGORIES = ["formula_shape", "implementation", "mask_parity", "audit"]
EN = {"Accept-Language": "en"}


@pytest.fixture
def two_labs(factory, web, course):
    """Alice graded in both labs: attention with an audit, NumPy with the mask tests failed."""
    numpy_lab = factory.assignment("numpy-lab", title="NumPy attention lab", suite="attention_numpy")
    attention = web.submit(course["alice"], course["assignment"])
    web.grade(attention, rubric_result("attention", audit_score=12))
    numpy_sub = web.submit(course["alice"], numpy_lab, audit=False, figure=False)
    web.grade(numpy_sub, rubric_result("attention_numpy", {"test_causal_mask_hides_future_tokens",
                                                           "test_mask_true_means_visible"}))
    return {**course, "numpy": numpy_lab, "numpy_sub": numpy_sub, "attention_sub": attention}


def test_dashboard_shows_each_labs_own_category_columns(client, web, two_labs):
    web.login(client, two_labs["teacher"])
    numpy_page = client.get("/instructor/?a=numpy-lab", headers=EN).get_data(as_text=True)
    for label in NUMPY_LABELS_EN:
        assert label in numpy_page
    assert "Audit explanation" not in numpy_page and "Formula and shapes" not in numpy_page
    assert ">16<" in numpy_page, "causal_mask: 30 - 8 - 6 for the two failed mask tests"
    attention_page = client.get("/instructor/?a=attention", headers=EN).get_data(as_text=True)
    assert "Audit explanation" in attention_page and "Stable softmax" not in attention_page


def test_gradebook_csv_columns_are_the_rubric_categories(client, web, two_labs):
    web.login(client, two_labs["teacher"])
    for slug, names in (("numpy-lab", NUMPY_CATEGORIES), ("attention", ATTENTION_CATEGORIES)):
        body = client.get(f"/instructor/gradebook.csv?a={slug}&headers=keys").get_data()  # round 47: the key row
        rows = list(csv.reader(io.StringIO(body.decode("utf-8-sig"))))
        assert rows[0][3:3 + len(names)] == names
        alice = next(r for r in rows if r[0] == "alice@example.edu")
        if slug == "numpy-lab":
            assert alice[2] == "86" and alice[3:7] == ["20", "25", "25", "16"]


def test_api_gradebook_lists_categories_and_maxima_from_the_rubric(client, factory, two_labs):
    token = factory.token(two_labs["teacher"])
    auth = {"Authorization": f"Bearer {token}"}
    out = client.get("/api/v1/gradebook?assignment=numpy-lab", headers=auth).get_json()
    assert [(c["name"], c["max"]) for c in out["categories"]] == [
        ("stable_softmax", 20), ("scaled_scores", 25), ("weights_context", 25), ("causal_mask", 30)]
    assert out["categories"][0]["label"] == {"en": "Stable softmax", "zh": "数值稳定的 softmax"}
    alice = next(s for s in out["students"] if s["email"] == "alice@example.edu")
    assert alice["score"] == 86 and alice["categories"]["causal_mask"] == 16 and alice["max"] == 100
    att = client.get("/api/v1/gradebook?assignment=attention", headers=auth).get_json()
    assert [(c["name"], c["max"]) for c in att["categories"]] == [
        ("formula_shape", 25), ("implementation", 30), ("mask_parity", 30), ("audit", 15)]


def test_api_submission_has_the_numpy_categories_and_no_audit(client, factory, two_labs):
    token = factory.token(two_labs["alice"])
    out = client.get(f"/api/v1/submissions/{two_labs['numpy_sub'].id}",
                     headers={"Authorization": f"Bearer {token}"}).get_json()
    result = out.get("result") or out
    assert sorted(result["categories"]) == sorted(NUMPY_CATEGORIES) and result["audit"] is None


def test_student_result_page_shows_numpy_categories_and_no_audit(client, web, two_labs):
    web.login(client, two_labs["alice"])
    html = client.get(f"/submissions/{two_labs['numpy_sub'].id}").get_data(as_text=True)
    for label in NUMPY_LABELS_ZH:
        assert label in html
    assert "审计" not in html, "an assignment without an audit shows no audit section"
    attention = client.get(f"/submissions/{two_labs['attention_sub'].id}").get_data(as_text=True)
    assert "审计" in attention and "数值稳定的 softmax" not in attention


def test_numpy_assignment_page_has_no_audit_upload_and_lists_both_labs(client, web, two_labs):
    web.login(client, two_labs["alice"])
    html = client.get("/assignments/numpy-lab", headers=EN).get_data(as_text=True)
    assert 'name="code"' in html and 'name="audit"' not in html and 'name="figure"' not in html
    assert "Stable softmax" in html and "Audit explanation" not in html
    assert "NumPy attention lab" in html and 'href="/assignments/attention"' in html
    attention = client.get("/assignments/attention", headers=EN).get_data(as_text=True)
    assert 'name="audit"' in attention and 'href="/assignments/numpy-lab"' in attention


def test_an_audit_sent_to_the_numpy_lab_is_refused_in_both_languages(client, web, two_labs):
    web.login(client, two_labs["alice"])
    data = {"code": (io.BytesIO(GOOD_CODE), "attention.py"), "figure": (io.BytesIO(png_bytes()), "f.png")}
    resp = client.post("/assignments/numpy-lab/submit", data=data, content_type="multipart/form-data")
    assert resp.status_code == 422 and "本作业没有审计文字和图片" in resp.get_data(as_text=True)
    data = {"code": (io.BytesIO(GOOD_CODE), "attention.py"), "figure": (io.BytesIO(png_bytes()), "f.png")}
    resp = client.post("/assignments/numpy-lab/submit", data=data, content_type="multipart/form-data",
                       headers=EN)
    assert resp.status_code == 422 and "no written audit" in resp.get_data(as_text=True)


def test_audit_review_of_an_assignment_without_audit_is_404(client, web, two_labs):
    web.login(client, two_labs["teacher"])
    page = client.get(f"/instructor/students/{two_labs['alice'].id}?a=numpy-lab").get_data(as_text=True)
    assert "Audit review" not in page and "审计复核" not in page
    resp = client.post(f"/instructor/submissions/{two_labs['numpy_sub'].id}/review", data={"score": "5"})
    assert resp.status_code == 404


def test_audit_review_maximum_comes_from_the_rubric(client, web, two_labs):
    web.login(client, two_labs["teacher"])
    page = client.get(f"/instructor/students/{two_labs['alice'].id}?a=attention", headers=EN).get_data(as_text=True)
    assert "Audit score (0–15)" in page and 'max="15"' in page
    sub = two_labs["attention_sub"]
    client.post(f"/instructor/submissions/{sub.id}/review", data={"score": "16"})
    page = client.get(f"/instructor/students/{two_labs['alice'].id}?a=attention", headers=EN).get_data(as_text=True)
    assert "Current:" not in page, "16 > 15 is refused"


def test_a_broken_rubric_is_an_error_not_a_default(tmp_path, monkeypatch):
    from app import coursework
    from rubric import loader
    from rubric.loader import RubricError

    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "rubric.yaml").write_text("assignment: broken\nmax_total: [\n")
    monkeypatch.setattr(loader, "RUBRIC_ROOT", tmp_path)
    with pytest.raises(RubricError, match="invalid YAML"):
        coursework.rubric_for("broken")
    with pytest.raises(RubricError, match="no rubric"):
        coursework.rubric_for("missing")
