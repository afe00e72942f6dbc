"""Round 35: every name a template prints is isolated from the text around it (tests/browser/test_rtl_names_round35.py
shows the layout it fixes: the numbers after an Arabic name were laid out before it)."""

from __future__ import annotations

import re
from pathlib import Path

from app.views_helpers import bdi, isolate

TEMPLATES = Path(__file__).resolve().parents[2] / "app" / "templates"
# A printed name: display_name, or a row's "name or email", inside {{ ... }}
PRINTED = re.compile(r"\{\{[^}]*?(display_name|\.name or [\w.]+\.email)[^}]*\}\}")


def test_every_name_a_template_prints_goes_through_bdi_or_isolate():
    bare = []
    for path in TEMPLATES.rglob("*.html"):
        for m in PRINTED.finditer(path.read_text()):
            text = m.group(0)
            if "{% block title %}" in path.read_text()[max(0, m.start() - 20):m.start()]:
                continue   # <title> holds text only: a tag there is shown as written
            if not re.search(r"\|\s*(bdi|isolate)\b", text):
                bare.append(f"{path.relative_to(TEMPLATES)}: {text}")
    assert not bare, bare


def test_bdi_escapes_the_name_and_isolate_wraps_it_in_isolates():
    assert str(bdi("<b>محمد</b>")) == "<bdi>&lt;b&gt;محمد&lt;/b&gt;</bdi>"
    assert isolate("דוד 3") == "\u2068דוד 3\u2069"


def test_the_similarity_report_isolates_the_names(client, web, course, factory):
    from app.extensions import db
    from app.models import SimilarityReport, utcnow

    alice, bob = course["alice"], course["bob"]
    alice.name = "محمد علي"
    db.session.commit()
    subs = [web.submit(u) for u in (alice, bob)]
    db.session.add(SimilarityReport(assignment_id=course["assignment"].id, status="done", threshold=0.5,
                                    submissions_compared=2, finished_at=utcnow(),
                                    pairs=[{"a": subs[0].id, "b": subs[1].id, "score": 0.9, "score_a": 0.9,
                                            "score_b": 0.88}]))
    db.session.commit()
    web.login(client, course["teacher"])
    html = client.get(f"/instructor/similarity?a={course['assignment'].slug}").get_data(as_text=True)
    assert "<bdi>محمد علي</bdi> <span" in html
