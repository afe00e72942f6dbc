"""Round 34: a name is stored composed (NFC), so the same roster written decomposed (NFD: macOS, text
copied from a file name) and composed is the same people with the same names.

Before, "José" and "김민준" in NFD were stored as sent; a re-import of the roster saved on another
computer (NFC) listed each as "updated" to a name that looks identical, and logged the change.
"""

from __future__ import annotations

import io
import unicodedata

from app.extensions import db
from app.models import User
from tests.web.test_roster_headers_round34 import _import

NAMES = {"jose@example.edu": "José Núñez", "kim@example.edu": "김민준", "nguyen@example.edu": "Nguyễn Văn An"}


def _roster(form: str) -> bytes:
    return "".join(f"{email},{unicodedata.normalize(form, name)}\n" for email, name in NAMES.items()).encode()


def test_a_decomposed_roster_and_a_composed_one_are_the_same_names(client, web, course):
    _import(client, web, course, _roster("NFD"))
    db.session.expire_all()
    stored = {u.email: u.name for u in db.session.query(User).filter(User.email.in_(NAMES))}
    assert stored == {e: unicodedata.normalize("NFC", n) for e, n in NAMES.items()}
    page = client.post("/instructor/roster", data={"csv": (io.BytesIO(_roster("NFC")), "r.csv")},
                       content_type="multipart/form-data").get_data(as_text=True)
    assert "0 updated, 3 unchanged" in page, page[page.find("updated") - 200:page.find("updated") + 50]
