"""A request in a method an address does not take is a 405 that says which methods it does take.

Round 29: the error handler rebuilt every HTTP error as its own page or JSON and dropped the exception's
headers, so a 405 came without the Allow header RFC 9110 (15.5.6) requires, and its text ("does not accept
that kind of request") did not say what would be accepted, on pages and in the API alike."""

from __future__ import annotations

from collections import defaultdict


def addresses(app) -> dict[str, set[str]]:
    """Every address of the app (path arguments filled with 1) with the methods its rules take together."""
    adapter = app.url_map.bind("localhost")
    out: dict[str, set[str]] = defaultdict(set)
    for rule in app.url_map.iter_rules():
        out[adapter.build(rule.endpoint, {arg: 1 for arg in rule.arguments})] |= rule.methods
    return out


def allow(resp) -> set[str]:
    return {m.strip() for m in resp.headers.get("Allow", "").split(",") if m.strip()}


def test_every_address_answers_a_method_it_does_not_take_with_405_and_allow(app, client):
    for url, methods in addresses(app).items():
        # a method some address takes (DELETE /api/v1/regrades/<id>, round 38) is tried on the others only
        for method in sorted({"PUT", "DELETE", "PATCH"} - methods):
            resp = client.open(url, method=method)
            assert resp.status_code == 405, (url, method, resp.status_code)
            assert allow(resp) == methods, (url, resp.headers.get("Allow"))


def test_the_api_405_is_the_one_json_shape_naming_the_methods_in_both_languages(client):
    resp = client.delete("/api/v1/submissions")
    body = resp.get_json()
    assert resp.status_code == 405 and allow(resp) == {"GET", "HEAD", "POST", "OPTIONS"}
    assert body["code"] == "method_not_allowed" and body["error"] == body["message"]["en"]
    assert "DELETE" in body["message"]["en"] and "GET, HEAD, POST" in body["message"]["en"]
    assert "DELETE" in body["message"]["zh"] and "GET、HEAD、POST" in body["message"]["zh"]   # round 46 mend: a zh list
    assert "只接受" in body["message"]["zh"]


def test_the_405_page_says_which_methods_are_taken_in_the_readers_language(client):
    for lang, says in (("en", "it accepts POST"), ("zh", "只接受 POST")):
        resp = client.get("/logout", headers={"Accept-Language": lang})
        assert resp.status_code == 405 and allow(resp) == {"POST", "OPTIONS"}
        assert says in resp.get_data(as_text=True)
