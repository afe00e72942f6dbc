"""Round 21: every UI string in the code has its Chinese text.

test_compiled_catalog_is_present_and_complete reads messages.po, so it sees only the strings that
were extracted into it: four API errors added later (`format must be one of ...`, the regrade scope
errors) were never extracted, and `POST /api/v1/regrades` with a bad scope answered its `zh` message
in English. This test extracts the strings from the sources, as `pybabel extract -F babel.cfg -k _l`
does, and looks each one up in the catalogue.
"""

from __future__ import annotations

from pathlib import Path

from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]


def source_messages() -> dict[str, str]:
    """msgid -> where it is used, for every string babel.cfg's extraction finds under app/."""
    with open(ROOT / "babel.cfg") as f:
        method_map, options_map = parse_mapping_cfg(f)
    keywords = {**DEFAULT_KEYWORDS, "_l": None}  # the Makefile's and README's `-k _l`
    found = {}
    for filename, lineno, message, _comments, _context in extract_from_dir(
            str(ROOT / "app"), [(pattern.removeprefix("app/"), method) for pattern, method in method_map],
            options_map, keywords=keywords):
        msgid = message if isinstance(message, str) else message[0]
        found.setdefault(msgid, f"app/{filename}:{lineno}")
    return found


def test_every_string_marked_for_translation_in_the_code_has_a_chinese_text():
    with open(ROOT / "app" / "translations" / "zh" / "LC_MESSAGES" / "messages.po", "rb") as f:
        catalog = read_po(f)
    found = source_messages()
    assert len(found) > 300  # the extraction itself found the app's strings
    missing = [f"{where}: {msgid!r}" for msgid, where in sorted(found.items(), key=lambda kv: kv[1])
               if catalog.get(msgid) is None or not catalog.get(msgid).string]
    assert missing == []


def test_a_bad_regrade_scope_is_answered_in_chinese_too(client, factory, course):
    resp = client.post("/api/v1/regrades", json={"scope": "everything"},
                       headers={"Authorization": f"Bearer {factory.token(course['teacher'])}"})
    assert resp.status_code == 400
    message = resp.json["message"]
    assert message["zh"] != message["en"] and "scope" in message["zh"]
