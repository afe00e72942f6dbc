"""Every status the API answers to the probes below is in the OpenAPI text (round 38, review RF item 2).
The documented-keys test (test_openapi_keys_round38.py) walks the answers' keys but asserted the status of
two errors only: a query parameter sent twice (400 duplicate_field, on every endpoint), a body of `{` (400
bad_json), an unknown assignment (404) and ?wait=abc (400 bad_wait) were answered where the text listed no
such status. Each documented operation gets the refusals it can meet; a new operation without probes fails
the coverage test."""

from __future__ import annotations

from app.openapi import spec
from tests.web.helpers import realistic_result

# (method, documented path, url, who, body): who is "student" or "staff"; body "{" is sent as raw JSON text.
PROBES: list[tuple[str, str, str, str, object]] = [
    ("get", "/submissions", "/api/v1/submissions?limit=1&limit=2", "student", None),
    ("get", "/submissions", "/api/v1/submissions?limit=abc", "student", None),
    ("post", "/submissions", "/api/v1/submissions?a=1&a=2", "student", None),
    ("get", "/submissions/{id}", "/api/v1/submissions/{sub}?wait=abc", "student", None),
    ("get", "/submissions/{id}", "/api/v1/submissions/{sub}?wait=1&wait=2", "student", None),
    ("get", "/submissions/{id}", "/api/v1/submissions/999999", "student", None),
    ("post", "/submissions/{id}/regrade", "/api/v1/submissions/{sub}/regrade?a=1&a=2", "staff", None),
    ("post", "/submissions/{id}/regrade", "/api/v1/submissions/{sub}/regrade", "student", None),
    ("get", "/gradebook", "/api/v1/gradebook?assignment=nope", "staff", None),
    ("get", "/gradebook", "/api/v1/gradebook?format=pdf", "staff", None),
    ("get", "/gradebook", "/api/v1/gradebook?a=1&a=2", "staff", None),
    ("post", "/regrades", "/api/v1/regrades", "staff", "{"),
    ("post", "/regrades", "/api/v1/regrades", "staff", {"scope": "all", "assignment": "nope"}),
    ("post", "/regrades", "/api/v1/regrades", "staff", {"scope": "all", "scope2": 1}),
    ("post", "/regrades", "/api/v1/regrades", "staff", {"scope": "student", "student": "nobody@example.edu"}),
    ("delete", "/regrades/{id}", "/api/v1/regrades/1?a=1&a=2", "staff", None),
    ("delete", "/regrades/{id}", "/api/v1/regrades/999999", "staff", None),
    ("delete", "/regrades/{id}", "/api/v1/regrades/1", "student", None),
    ("post", "/extensions", "/api/v1/extensions", "staff", "{"),
    ("post", "/extensions", "/api/v1/extensions", "staff", {"assignment": "nope", "student": "x@example.edu"}),
    ("post", "/extensions", "/api/v1/extensions?a=1&a=2", "staff", {"student": "x@example.edu"}),
    ("get", "/similarity", "/api/v1/similarity?assignment=nope", "staff", None),
    ("get", "/similarity", "/api/v1/similarity?a=1&a=2", "staff", None),
    ("post", "/similarity", "/api/v1/similarity", "staff", {"assignment": "nope"}),
    ("post", "/similarity", "/api/v1/similarity", "staff", "{"),
    ("get", "/openapi.json", "/api/v1/openapi.json?a=1&a=2", "student", None),
]


def test_every_documented_operation_is_probed_for_its_refusals() -> None:
    probed = {(m, path) for m, path, *_ in PROBES}
    documented = {(m, path) for path, item in spec()["paths"].items() for m in item}
    assert documented - probed == set(), "add probes for these operations"


def test_every_status_the_api_answers_to_the_probes_is_documented(client, web, factory, course) -> None:
    sub = web.submit(course["alice"], audit=False, figure=False)
    web.grade(sub, realistic_result())
    tokens = {"student": factory.token(course["alice"]), "staff": factory.token(course["teacher"])}
    paths = spec()["paths"]
    undocumented = []
    for method, path, url, who, body in PROBES:
        kw: dict = {"headers": {"Authorization": f"Bearer {tokens[who]}"}}
        if body == "{":
            kw.update(data="{", content_type="application/json")
        elif body is not None:
            kw["json"] = body
        r = getattr(client, method)(url.format(sub=sub.id), **kw)
        assert r.status_code >= 400, (method, url, r.status_code)
        if str(r.status_code) not in paths[path][method]["responses"]:
            undocumented.append(f"{method.upper()} {url} -> {r.status_code} {(r.json or {}).get('code')}")
    assert undocumented == [], "\n".join(undocumented)
