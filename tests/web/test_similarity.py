"""The similarity check: copydetect on a small corpus where two submissions are renamed copies
and the others were written independently; the handout skeleton never counts; the report runs as
the worker's task, is served through the API, and shows pairs side by side, escaped."""

from __future__ import annotations

import re
from pathlib import Path

from app.extensions import db
from app.models import SimilarityReport
from autograder import settings
from grading.similarity import boilerplate_source, compare, segments

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "similarity"
# alice.py, bob.py and carol.py were written independently; dave.py is alice.py with every local
# name renamed, comments added and a docstring line moved.
SOURCES = {name: (CORPUS / f"{name}.py").read_text(encoding="utf-8") for name in ("alice", "bob", "carol", "dave")}


def by_name() -> dict[int, str]:
    return {i: SOURCES[n] for i, n in enumerate(SOURCES)}


def test_only_the_renamed_copy_is_reported_at_the_default_threshold():
    names = list(SOURCES)
    pairs = compare(by_name(), boilerplate=boilerplate_source("attention"), threshold=settings.SIMILARITY_THRESHOLD,
                    k=settings.SIMILARITY_NOISE_K, win=settings.SIMILARITY_WINDOW)
    assert [(names[p.a], names[p.b]) for p in pairs] == [("alice", "dave")]
    assert pairs[0].score >= 0.9
    everything = compare(by_name(), boilerplate=boilerplate_source("attention"), threshold=0.0)
    independent = [p.score for p in everything if {names[p.a], names[p.b]} != {"alice", "dave"}]
    print(f"independent pairs: max {max(independent):.2f}; renamed copy: {pairs[0].score:.2f}")
    assert max(independent) < settings.SIMILARITY_THRESHOLD


def test_the_handout_skeleton_does_not_count_as_a_match():
    handout = boilerplate_source("attention")
    assert "class ScaledDotProductAttention" in handout
    # Two students who kept the handout's attention class and each wrote their own helper.
    one = handout + "\n\ndef heads(x, h):\n    b, n, d = x.shape\n    return x.view(b, n, h, d // h).transpose(1, 2)\n"
    two = handout + "\n\ndef count_params(model):\n    return sum(p.numel() for p in model.parameters())\n"
    assert compare({1: one, 2: two}, threshold=0.5)                         # without boilerplate: a "match"
    assert compare({1: one, 2: two}, boilerplate=handout, threshold=0.5) == []


def test_segments_cover_the_code_exactly_and_mark_the_matches():
    code = "abcdefghij"
    parts = segments(code, [[2, 4], [6, 9]])
    assert "".join(t for _, t in parts) == code
    assert [t for m, t in parts if m] == ["cd", "ghi"]


def _submit_code(web, student, code: str):
    from app.storage import BlobStore
    from app.submitting import Upload, submit

    return submit(web.f.assignment(), student, Upload("attention.py", code.encode()),
                  store=BlobStore(web.app.config["UPLOAD_DIR"]), max_pending=0)


def test_the_report_runs_as_a_task_and_is_served_by_the_api_and_the_pages(client, web, course, factory):
    from worker.similarity import run_report

    students = {"alice": course["alice"], "bob": course["bob"], "carol": factory.student(name="Carol Li"),
                "dave": factory.student(name="Dave <b>Wu</b>")}
    subs = {n: _submit_code(web, students[n], SOURCES[n] + ("# <script>alert(1)</script>\n" if n == "dave" else ""))
            for n in SOURCES}
    token = web.f.token(course["teacher"])
    headers = {"Authorization": f"Bearer {token}"}
    assert client.get("/api/v1/similarity?assignment=attention", headers=headers).json == {"status": "none",
                                                                                           "pairs": []}
    resp = client.post("/api/v1/similarity", json={"assignment": "attention"}, headers=headers)
    assert resp.status_code == 202 and resp.json["status"] == "queued"
    assert client.get("/api/v1/similarity", headers=headers).json["status"] == "queued"
    assert run_report(resp.json["id"]) == "done"      # what the worker's task runs
    body = client.get("/api/v1/similarity?assignment=attention", headers=headers).json
    assert body["status"] == "done" and body["submissions_compared"] == 4
    assert [(p["a"], p["b"]) for p in body["pairs"]] == [(subs["alice"].id, subs["dave"].id)]
    assert 0.9 <= body["pairs"][0]["score"] <= 1
    assert client.post("/api/v1/similarity", json={}, headers={"Authorization": f"Bearer {web.f.token(course['bob'])}"}
                       ).status_code == 403
    # the instructor's pages: the list, then the pair side by side with matches marked, escaped
    web.login(client, course["teacher"])
    client.get("/lang/en")
    page = client.get("/instructor/similarity").get_data(as_text=True)
    assert "1 pair(s) at or above 50% shared code" in page and "never a penalty" in page
    report = db.session.query(SimilarityReport).one()
    pair = client.get(f"/instructor/similarity/{report.id}/pairs/0").get_data(as_text=True)
    assert pair.count('<pre class="code-side">') == 2 and pair.count("<mark>") >= 2
    assert "<script>alert(1)" not in pair and "&lt;script&gt;alert(1)" in pair
    assert "Dave &lt;b&gt;Wu&lt;/b&gt;" in pair
    marked = "".join(re.findall(r"<mark>(.*?)</mark>", pair, re.S))
    assert "einsum" in marked
    assert client.get(f"/instructor/similarity/{report.id}/pairs/5").status_code == 404


def test_a_failing_report_says_why_instead_of_staying_queued(web, course, monkeypatch):
    import worker.similarity
    from worker.similarity import run_report

    def broken(*args, **kwargs):
        raise MemoryError("corpus too large")

    _submit_code(web, course["alice"], SOURCES["alice"])
    report = SimilarityReport(assignment_id=course["assignment"].id, threshold=0.5)
    db.session.add(report)
    db.session.commit()
    monkeypatch.setattr(worker.similarity, "comparison", broken)   # what the task calls (round 37)
    assert run_report(report.id) == "error"
    db.session.expire_all()
    assert report.status == "error" and report.message == "MemoryError: corpus too large"
    assert report.finished_at is not None
