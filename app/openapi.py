"""OpenAPI 3 description of the JSON API (hand-written; served at /api/v1/openapi.json)."""

from __future__ import annotations

from typing import Any


def _err(desc: str) -> dict:
    return {"description": desc, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}


# Refusals every operation shares (app.api's before_request, app.api_input.json_object): written once here,
# since each operation's own 400 named only its own (round 38: ?a=1&a=2 and a body of `{` answered 400 where
# the text said no 400 could come).
_REPEATED = "a query parameter sent twice (duplicate_field)"
_BAD_BODY = ("a body that is not a JSON object (bad_json), a key sent twice (duplicate_field), an unknown field "
             "(unknown_field), a field of the wrong type (bad_field) or a text with characters no database "
             "stores (bad_characters)")


def _shared_refusals(op: dict[str, Any]) -> None:
    said = [_REPEATED]
    if "application/json" in op.get("requestBody", {}).get("content", {}):
        said.append(_BAD_BODY)
        op["responses"].setdefault("413", _err("a JSON body larger than the limit (body_too_large)"))
        op["responses"].setdefault("415", _err("a body that is not application/json (unsupported_media_type)"))
    own = op["responses"].get("400")
    text = "; ".join(([own["description"]] if own else []) + said)
    op["responses"]["400"] = _err(text)


def spec() -> dict[str, Any]:
    """The description, with every GET's 304 (app.api.conditional) added to its responses."""
    out = _spec()
    for item in out["paths"].values():
        for op in item.values():
            _shared_refusals(op)
        if "get" in item:
            item["get"]["responses"].setdefault("304", {
                "description": "Not modified: the If-None-Match header named this answer's current ETag (sent "
                               "with every 200); nothing else is sent."})
    return out


def _spec() -> dict[str, Any]:
    auth = [{"bearer": []}]
    unauth = _err("Missing or invalid token")
    return {
        "openapi": "3.0.3",
        "info": {
            "title": "Autograder API",
            "version": "1",
            "description": "Submit attention.py (plus an optional audit and figure) and follow its grading. "
            "Create a token on the 'API tokens' page and send it as `Authorization: Bearer <token>`. "
            "Students only ever see their own submissions (others answer 404); hidden tests show "
            "pass/fail only.",
        },
        "servers": [{"url": "/api/v1"}],
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": {
                "Error": {
                    "type": "object", "required": ["error", "code", "message"],
                    "description": "Every error, whatever its status (500 included), has this shape.",
                    "properties": {
                        "error": {"type": "string"},
                        "code": {"type": "string"},
                        "message": {"type": "object", "properties": {"en": {"type": "string"},
                                                                     "zh": {"type": "string"}}},
                        "accepted": {"type": "array", "items": {"type": "string"},
                                     "description": "when a value (or a field name) is not one the request "
                                                    "takes: the ones it takes, as they are sent"},
                    },
                },
                "Queued": {
                    "type": "object",
                    "properties": {"id": {"type": "integer"},
                                   "status": {"type": "string", "enum": ["queued", "running", "graded", "error"],
                                              "description": "`queued` for a new attempt; a replay gives the "
                                                             "attempt's status now"},
                                   "replayed": {"type": "boolean",
                                                "description": "true when an earlier send with the same "
                                                               "Idempotency-Key made this attempt"},
                                   "attempt": {"type": "integer"}, "queue_position": {"type": "integer"},
                                   "url": {"type": "string"},
                                   "carried_forward": {
                                       "type": "object",
                                       "description": "attempt numbers whose audit / figure this attempt kept "
                                                      "(null when uploaded now or absent)",
                                       "properties": {"audit": {"type": "integer", "nullable": True},
                                                      "figure": {"type": "integer", "nullable": True}}},
                                   "warnings": {"type": "array", "description": "`no_audit` when the attempt "
                                                                               "has no audit",
                                                "items": {"type": "object", "properties": {
                                                    "code": {"type": "string"},
                                                    "message": {"$ref": "#/components/schemas/Message"}}}},
                                   "renamed": {
                                       "type": "array",
                                       "description": "each file of this send kept under another name than the "
                                                      "one sent (empty when none was), with why, as the upload "
                                                      "page says it",
                                       "items": {"type": "object", "properties": {
                                           "field": {"type": "string", "enum": ["code", "audit", "figure"]},
                                           "sent": {"type": "string", "description": "the name as sent"},
                                           "kept": {"type": "string", "description": "the name the attempt lists"},
                                           "reasons": {"type": "array", "items": {"type": "string", "enum": [
                                               "folders", "composed", "invisible", "spaces", "empty",
                                               "shortened", "hidden_txt"]},
                                               "description": "folders: a path was sent, its last part kept; "
                                                              "composed: Unicode NFC; invisible: control or "
                                                              "format characters removed; spaces: at either "
                                                              "end, removed; empty: nothing was left "
                                                              "('upload'); shortened: past 120 characters; "
                                                              "hidden_txt: attention.py.txt kept as "
                                                              "attention.py"},
                                           "message": {"type": "object", "properties": {
                                               "en": {"type": "string"}, "zh": {"type": "string"}}}}}}},
                },
                "Submission": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer"},
                        "assignment": {"type": "string"},
                        "status": {"type": "string", "enum": ["queued", "running", "graded", "error"]},
                        "attempt": {"type": "integer"},
                        "submitted_at": {"type": "string", "format": "date-time"},
                        "late_days": {"type": "integer"},
                        "audit_from_attempt": {"type": "integer", "nullable": True,
                                               "description": "the attempt whose audit this one kept (null when "
                                                              "uploaded with it or absent)"},
                        "figure_from_attempt": {"type": "integer", "nullable": True,
                                                "description": "the attempt whose figure this one kept (null when "
                                                               "uploaded with it or absent)"},
                        "queue_position": {"type": "integer", "nullable": True,
                                           "description": "queued runs ahead of this one (0 = next)"},
                        "grader_version": {"type": "string", "nullable": True},
                        "graded_run_id": {"type": "integer", "nullable": True,
                                          "description": "the graded run whose result and score are shown (null "
                                                         "until one ended graded: `result` is then the latest run's, "
                                                         "an error's); a regrade's result, once in, changes it (and the ETag: "
                                                         "If-None-Match with the old tag answers 200 with the new "
                                                         "result). `status` is `queued`/`running` while a regrade "
                                                         "waits, with the earlier result still shown"},
                        "result": {"type": "object", "nullable": True, "additionalProperties": True,
                                   "properties": {
                                       "review": {"type": "array", "description": "instructors' view only",
                                                  "items": {"$ref": "#/components/schemas/ReviewReason"}},
                                       "instructor_review": {
                                           "type": "boolean", "description": "students' view only: whether the "
                                           "grader asked an instructor to look at the attempt (its reasons are "
                                           "not shown to students)"}},
                                   "description": "The grade JSON (docs/contracts.md §2); for students "
                                   "without 'log' and 'review' (only 'instructor_review': true or false) and "
                                   "with hidden tests' feedback set to null. Feedback and "
                                   "the message are in one language ('lang': ?lang=zh|en, else "
                                   "Accept-Language). A test whose outcome is 'timeout' says how it ended in "
                                   "'stopped': 'time_limit' (its wall or CPU limit), 'idle' (the code sat idle "
                                   "while the grader waited: no limit was met) or 'not_run' (the grader skipped "
                                   "it). 'review' (why a person should look at the attempt; instructors' view) is a "
                                   "list of ReviewReason."},
                        "score": {"type": "object", "nullable": True,
                                  "description": "total after the audit review and the late penalty",
                                  "properties": {
                                      "raw_total": {"type": "number"}, "max_total": {"type": "number"},
                                      "audit_auto": {"type": "number", "nullable": True,
                                                     "description": "the audit checker's points"},
                                      "audit_override": {"type": "number", "nullable": True,
                                                         "description": "the reviewer's points, when reviewed"},
                                      "late_days": {"type": "integer"}, "penalty_fraction": {"type": "number"},
                                      "penalty_points": {"type": "number"}, "total": {"type": "number"},
                                      "categories": {"type": "object", "additionalProperties": True,
                                                     "description": "per rubric category, as in the grade JSON "
                                                                    "(docs/contracts.md §2)"},
                                      "overrides": {"type": "array", "items": {
                                          "type": "object", "additionalProperties": True,
                                          "description": "an instructor's override: kind, target, points, "
                                                         "comment, author, at"}}}},
                        "audit_review": {"type": "object", "nullable": True, "properties": {
                            "score": {"type": "number"}, "comment": {"type": "string"},
                            "reviewer": {"type": "string", "description": "the reviewer's name"},
                            "at": {"type": "string", "format": "date-time"}}},
                        "student": {"type": "object", "description": "instructors' view only",
                                    "properties": {"id": {"type": "integer"}, "email": {"type": "string"},
                                                   "name": {"type": "string"}}},
                        "runs": {"type": "array", "description": "instructors' view only: every run, oldest first",
                                 "items": {"type": "object", "properties": {
                                     "id": {"type": "integer"}, "trigger": {"type": "string"},
                                     "status": {"type": "string"},
                                     "grader_version": {"type": "string", "nullable": True},
                                     "total": {"type": "number", "nullable": True},
                                     "queued_at": {"type": "string", "format": "date-time"}}}},
                    },
                },
                "ReviewReason": {
                    "type": "object", "required": ["code", "params", "text", "message"],
                    "description": "one reason in result.review: why an instructor should look at the attempt",
                    "properties": {
                        "code": {"type": "string", "description": "its stable id, e.g. 'engine.budget_spent' or "
                                 "'attention.indirect_names' (another suite's own; 'text': one given as text "
                                 "alone). A result graded before codes were stored is read back to its code"},
                        "params": {"type": "object", "additionalProperties": {"type": "string"},
                                   "description": "the parts the text quotes (names, calls, an error, limits)"},
                        "text": {"type": "string", "description": "in English, as the run log's REVIEW line"},
                        "findings": {"type": "array", "description": "the places a reason lists, when it lists "
                                     "them (attention.indirect_names): line, kind (e.g. 'computed_name', "
                                     "'imports', 'code', 'foreign_base': subject 'Cls(base)') and subject "
                                     "(code; empty for a kind that names none); kind 'text': a place stored "
                                     "as English alone (before round 40) in no form the server knows, its "
                                     "subject that text (a known form is read back to its kind)",
                                     "items": {"type": "object", "properties": {
                                         "line": {"type": "string"}, "kind": {"type": "string"},
                                         "subject": {"type": "string"}}}},
                        "message": {"type": "string", "description": "in the caller's language ('lang')"}}},
                "Message": {"type": "object", "description": "the same text in both languages",
                            "properties": {"en": {"type": "string"}, "zh": {"type": "string"}}},
            },
        },
        "security": auth,
        "paths": {
            "/submissions": {
                "post": {
                    "summary": "Submit an attempt",
                    "description": "Send the files as `multipart/form-data`. A code-only resubmission "
                                   "keeps the previous attempt's audit and figure (see `carried_forward`). "
                                   "Send an `Idempotency-Key` header (a new UUID per attempt) to retry "
                                   "safely: a send with the key of an earlier one makes no new attempt and "
                                   "answers 202 with that attempt (`replayed: true`, header "
                                   "`Idempotent-Replayed: true`), even past the cooldown or the pending cap.",
                    "parameters": [
                        {"name": "Idempotency-Key", "in": "header", "required": False,
                         "description": "1-200 visible ASCII characters, bare or in double quotes; the same "
                                        "key with other files or fields is 422 `idempotency_key_reused`; a "
                                        "malformed key is 400 `bad_idempotency_key`. Keys are per user and "
                                        "kept 24 hours: a retry within them gets the first answer, a key "
                                        "older than that names a new request.",
                         "schema": {"type": "string", "maxLength": 200}},
                    ],
                    "requestBody": {"required": True, "content": {"multipart/form-data": {"schema": {
                        "type": "object", "required": ["code"],
                        "properties": {
                            "code": {"type": "string", "format": "binary", "description": "attention.py"},
                            "audit": {"type": "string", "format": "binary",
                                      "description": ".md, .txt or .pdf; when omitted, the previous attempt's "
                                                     "audit is kept"},
                            "figure": {"type": "string", "format": "binary",
                                       "description": ".png or .jpg; when omitted, the previous attempt's "
                                                      "figure is kept"},
                            "remove_audit": {"type": "string", "enum": ["1"],
                                             "description": "`1`: do not keep the previous audit"},
                            "remove_figure": {"type": "string", "enum": ["1"],
                                              "description": "`1`: do not keep the previous figure"},
                            "assignment": {"type": "string", "description": "slug; default: first published"},
                            # The upload page's own field: scripts that copy the page's form send it too,
                            # and refusing it as a typo would fail an upload that means no harm.
                            "confirm_no_audit": {"type": "string", "enum": ["1"],
                                                 "description": "the upload page's confirmation that no audit "
                                                                "is sent; accepted and ignored here (the API "
                                                                "asks for none)"},
                        }}}}},
                    "responses": {
                        "202": {"description": "Queued", "content": {"application/json": {
                            "schema": {"$ref": "#/components/schemas/Queued"}}}},
                        "400": _err("code missing (code_missing), a file sent as a text field (not_a_file: use "
                                    "curl -F code=@file), several files in one field (several_files) or a "
                                    "malformed Idempotency-Key (bad_idempotency_key)"),
                        "401": unauth, "403": _err("deadline passed, or the student was dropped (not_enrolled)"),
                        "413": _err("file too large (too_large, code_too_large, ...), or the form past its "
                                    "limits of parts or of a text field's length (form_too_complex)"),
                        "415": _err("wrong file type"),
                        "422": _err("file rejected (encoding, empty, damaged), or an Idempotency-Key "
                                    "already used for another upload (idempotency_key_reused)"),
                        "429": _err("cooldown, too many pending attempts or rate limit"),
                        "503": _err("server_busy: no decoder free for the PDF or image now; nothing was "
                                    "stored, send it again after Retry-After seconds"),
                    },
                },
                "get": {
                    "summary": "List my submissions",
                    "description": "Own submissions, oldest first, in pages of `limit` (default 100). "
                                   "`next` in the body and the `Link: <...>; rel=\"next\"` header name "
                                   "the next page; `next` is null on the last one. Follow it as given: "
                                   "`after` is the last id seen, so attempts made meanwhile are neither "
                                   "skipped nor listed twice.",
                    "parameters": [
                        {"name": "limit", "in": "query", "required": False,
                         "description": "items per page (1-500, default 100)",
                         "schema": {"type": "integer", "minimum": 1, "maximum": 500, "default": 100}},
                        {"name": "after", "in": "query", "required": False,
                         "description": "cursor: list the submissions with a larger id (from `next`)",
                         "schema": {"type": "integer", "minimum": 0, "maximum": 2147483647}},
                    ],
                    "responses": {
                        "200": {"description": "Own submissions",
                                "headers": {"Link": {"description": "`<next page>; rel=\"next\"`, absent "
                                                                    "on the last page",
                                                     "schema": {"type": "string"}}},
                                "content": {"application/json": {"schema": {
                                    "type": "object", "required": ["submissions", "next"],
                                    "properties": {
                                        "submissions": {"type": "array", "items": {"type": "object", "properties": {
                                            "id": {"type": "integer"}, "assignment": {"type": "string"},
                                            "attempt": {"type": "integer"}, "status": {"type": "string"},
                                            "submitted_at": {"type": "string", "format": "date-time"},
                                            "late_days": {"type": "integer"},
                                            "total": {"type": "number", "nullable": True,
                                                      "description": "after the audit review and the late "
                                                                     "penalty; null until graded"}}}},
                                        "next": {"type": "string", "nullable": True,
                                                 "description": "URL of the next page, null on the last"}}}}}},
                        "400": _err("limit not a whole number from 1 to 500 (bad_limit), or after not an "
                                    "id (bad_cursor)"),
                        "401": unauth,
                    },
                },
            },
            "/submissions/{id}": {
                "get": {
                    "summary": "Status and result of one submission",
                    "description": "With `?wait=S` the answer waits until grading ends (or S seconds, at "
                                   "most 20) instead of polling: `GET /api/v1/submissions/7?wait=20`. Sent "
                                   "with `If-None-Match: <the ETag you hold>`, it waits while that tag is "
                                   "current, whatever the status: a regrade of a graded attempt (queued, "
                                   "then its result), an override or a review answers 200 at once; no "
                                   "change in S seconds answers 304.",
                    "parameters": [
                        {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}},
                        {"name": "wait", "in": "query", "required": False,
                         "description": "Long-poll: answer as soon as grading ends, or after this many "
                                        "seconds (at most 20). With If-None-Match: answer as soon as the "
                                        "answer's ETag is not the one sent (a regrade included), else 304 "
                                        "after this many seconds. ASCII decimal digits only (e.g. 2 or 2.5). At most 2 "
                                        "API waits per user at once in one server process (LONGPOLL_PER_USER; "
                                        "the assignment pages' list waits are counted apart): more answer "
                                        "429 with Retry-After; a busy server may answer at once with the "
                                        "current state.",
                         "schema": {"type": "number", "minimum": 0, "maximum": 20}},
                    ],
                    "responses": {
                        "200": {"description": "The submission", "content": {"application/json": {
                            "schema": {"$ref": "#/components/schemas/Submission"}}}},
                        "400": _err("wait not a number of seconds from 0 to 20 (bad_wait)"),
                        "401": unauth, "404": _err("not found (or not yours)"),
                        "429": _err("this user's API long polls (LONGPOLL_PER_USER) all open, or rate limit "
                                     "(see Retry-After)"),
                    },
                },
            },
            "/submissions/{id}/regrade": {
                "post": {
                    "summary": "Queue a regrade (instructors)",
                    "description": "Send an `Idempotency-Key` header to retry safely: a request with the key "
                                   "of an earlier one (within 24 hours) queues nothing and answers 202 with "
                                   "that run (`replayed: true`, header `Idempotent-Replayed: true`).",
                    "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}},
                                   {"name": "Idempotency-Key", "in": "header", "required": False,
                                    "description": "1-200 visible ASCII characters; the same key for another "
                                                   "submission is 422 `idempotency_key_reused`.",
                                    "schema": {"type": "string", "maxLength": 200}}],
                    "responses": {"202": {"description": "Queued. already_waiting true: the attempt "
                                                        "was still waiting for its first grading, run_id is "
                                                        "that run and no second run was queued (message en/zh)",
                                          "content": {"application/json": {"schema": {
                                              "type": "object", "properties": {
                                                  "id": {"type": "integer"}, "run_id": {"type": "integer"},
                                                  "status": {"type": "string"}, "replayed": {"type": "boolean"},
                                                  "queue_position": {"type": "integer", "nullable": True},
                                                  "already_waiting": {"type": "boolean"},
                                                  "message": {"$ref": "#/components/schemas/Message"}}}}}},
                                  "400": _err("a malformed Idempotency-Key (bad_idempotency_key)"), "401": unauth,
                                  "403": _err("instructors only"), "404": _err("not found"),
                                  "422": _err("the Idempotency-Key was used for another submission "
                                              "(idempotency_key_reused)")},
                },
            },
            "/gradebook": {
                "get": {
                    "summary": "Gradebook (instructors): the counted attempt after overrides and late penalty",
                    "description": "One row per student in class-list order (since round 47; email "
                                   "order before): Chinese names by pinyin, other names by their letters "
                                   "without accents, ties by tone, name and email. Read rows by their "
                                   "email, not their position.",
                    "parameters": [
                        {"name": "format", "in": "query", "description": "csv: plain (UTF-8 with BOM); xlsx: the same "
                         "columns as an Excel workbook, scores as numbers; canvas: "
                         "Canvas's gradebook import layout with a Points Possible row; moodle: Moodle's CSV "
                         "grade import layout (map 'Email address' to useremail)",
                         "schema": {"type": "string", "enum": ["json", "csv", "xlsx", "canvas", "moodle"]}},
                        {"name": "headers", "in": "query", "description": "the header row of csv and xlsx: keys "
                         "(the default), the fixed column keys email, name, the score rule, the rubric's category "
                         "keys, attempts, best_attempt, late_days; labels: the same columns named in the "
                         "Accept-Language's language (zh or en), each score column with its maximum. Canvas and "
                         "Moodle keep their importers' headers",
                         "schema": {"type": "string", "enum": ["keys", "labels"], "default": "keys"}},
                        {"name": "assignment", "in": "query", "schema": {"type": "string"}},
                    ],
                    "responses": {"200": {"description": "JSON, or a CSV file", "content": {"application/json": {
                        "schema": {"type": "object", "properties": {
                            "assignment": {"type": "string"},
                            "score_rule": {"type": "string", "description": "how the counted score is chosen"},
                            "categories": {"type": "array", "description": "in the rubric's order",
                                           "items": {"type": "object", "properties": {
                                               "name": {"type": "string"}, "max": {"type": "number"},
                                               "label": {"$ref": "#/components/schemas/Message"}}}},
                            "students": {"type": "array", "items": {
                                "type": "object", "description": "one row per enrolled student",
                                "properties": {
                                    "email": {"type": "string"}, "name": {"type": "string"},
                                    "score": {"type": "number", "nullable": True,
                                              "description": "the counted attempt's, after overrides and the "
                                                             "late penalty; null when none is graded"},
                                    "max": {"type": "number"},
                                    "best_attempt": {"type": "integer", "nullable": True,
                                                     "description": "the attempt that counts"},
                                    "categories": {"type": "object",
                                                   "additionalProperties": {"type": "number", "nullable": True},
                                                   "description": "{category: points}, the rubric's categories "
                                                                  "(`categories` above)"},
                                    "attempts": {"type": "integer"}, "late_days": {"type": "integer"},
                                    "status": {"type": "string"}}}}}}}}},
                                  "400": _err("unknown format (bad_format) or headers (bad_headers)"),
                                  "401": unauth, "403": _err("instructors only"),
                                  "404": _err("no such assignment (assignment_not_found)")},
                },
            },
            "/regrades": {
                "post": {
                    "summary": "Queue a regrade batch (instructors)",
                    "description": "Send an `Idempotency-Key` header to retry safely: a request with the key "
                                   "of an earlier one queues nothing and answers 202 with that batch "
                                   "(`replayed: true`, header `Idempotent-Replayed: true`).",
                    "parameters": [
                        {"name": "Idempotency-Key", "in": "header", "required": False,
                         "description": "1-200 visible ASCII characters; the same key for another scope, "
                                        "student or submission is 422 `idempotency_key_reused`.",
                         "schema": {"type": "string", "maxLength": 200}},
                    ],
                    "requestBody": {"required": True, "content": {"application/json": {"schema": {
                        "type": "object", "required": ["scope"],
                        "properties": {
                            "assignment": {"type": "string", "description": "slug; default: first published"},
                            "scope": {"type": "string", "enum": ["counting", "all", "student", "submission"],
                                      "description": "counting: each student's counted attempt; all: every "
                                                     "attempt; student: one student's attempts; submission: one"},
                            "student": {"type": "string", "description": "email (scope student)"},
                            "submission": {"type": "integer", "minimum": 1, "maximum": 2147483647,
                                           "description": "id (scope submission)"},
                        }}}}},
                    "responses": {
                        "202": {"description": "Queued", "content": {"application/json": {"schema": {
                            "type": "object", "properties": {"batch": {"type": "integer"},
                                                             "runs_queued": {"type": "integer"},
                                                             "already_waiting": {
                                                                 "type": "integer",
                                                                 "description": "planned attempts still waiting "
                                                                                "for their first grading: no "
                                                                                "run queued for them"},
                                                             "replayed": {"type": "boolean"},
                                                             "url": {"type": "string"}}}}}},
                        "400": _err("bad scope or missing student/submission, or a malformed Idempotency-Key "
                                    "(bad_idempotency_key)"), "401": unauth,
                        "422": _err("the Idempotency-Key was used for another regrade (idempotency_key_reused)"),
                        "403": _err("instructors only"), "404": _err("no such assignment, student or submission"),
                        "409": _err("nothing_to_regrade: the scope holds no attempt (no submission yet, or a "
                                    "student without attempts); no batch was made"),
                    },
                },
            },
            "/regrades/{id}": {
                "delete": {
                    "summary": "Cancel a regrade batch's runs still queued (instructors)",
                    "description": "As the batch page's Cancel: the runs no worker has taken yet are removed (never "
                                   "graded: those attempts keep their score and status); runs already running "
                                   "finish and their results are stored. Idempotent: sending it again removes "
                                   "nothing more and answers 200 with `outcome` `already_cancelled` (or "
                                   "`partly_taken`: an earlier cancel removed some runs, workers took the others).",
                    "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer"},
                                    "description": "the batch id (`batch` of POST /regrades)"}],
                    "responses": {
                        "200": {"description": "What the cancel did", "content": {"application/json": {"schema": {
                            "type": "object", "properties": {
                                "batch": {"type": "integer"},
                                "outcome": {"type": "string",
                                            "enum": ["cancelled", "already_cancelled", "partly_taken"]},
                                "cancelled": {"type": "integer", "description": "runs removed by this request"},
                                "running": {"type": "integer", "description": "runs of the batch running now: "
                                                                              "they finish"},
                                "cancelled_in_all": {"type": "integer",
                                                     "description": "runs removed by every cancel of the batch"},
                                "runs_queued": {"type": "integer", "description": "runs the batch queued"},
                                "url": {"type": "string", "description": "the batch's page"},
                                "message": {"$ref": "#/components/schemas/Message"}}}}}},
                        "401": unauth, "403": _err("instructors only (forbidden)"),
                        "404": _err("no such batch (batch_not_found)"),
                        "409": _err("nothing_to_cancel: workers had already taken every run of the batch, or it "
                                    "queued none (its attempts were waiting for their first grading, or it planned "
                                    "none: a batch made before POST /regrades refused an empty scope); nothing was "
                                    "cancelled"),
                    },
                },
            },
            "/extensions": {
                "post": {
                    "summary": "Grant or replace a student's extension (instructors)",
                    "requestBody": {"required": True, "content": {"application/json": {"schema": {
                        "type": "object", "required": ["student"],
                        "properties": {
                            "assignment": {"type": "string"},
                            "student": {"type": "string", "description": "email"},
                            "deadline": {"type": "string", "format": "date-time",
                                         "description": "ISO 8601; without an offset it is UTC"},
                            "extra_days": {"type": "integer", "description": "days added to the deadline, "
                                                                             "when no deadline is given"},
                            "reason": {"type": "string"},
                        }}}}},
                    "responses": {"201": {"description": "The student's deadline now", "content": {
                        "application/json": {"schema": {"type": "object", "properties": {
                            "assignment": {"type": "string"}, "student": {"type": "string", "description": "email"},
                            "deadline": {"type": "string", "format": "date-time", "nullable": True},
                            "extra_days": {"type": "integer"}}}}}},
                                  "401": unauth, "403": _err("instructors only"), "404": _err("no such student"),
                                  "422": _err("no deadline and no extra days, or a bad date")},
                },
            },
            "/similarity": {
                "post": {
                    "summary": "Start a similarity report over the latest submissions (instructors)",
                    "description": "Send an `Idempotency-Key` header to retry safely: a request with the key "
                                   "of an earlier one (within 24 hours) starts nothing and answers 202 with "
                                   "that report (`replayed: true`, header `Idempotent-Replayed: true`).",
                    "parameters": [{"name": "Idempotency-Key", "in": "header", "required": False,
                                    "description": "1-200 visible ASCII characters; the same key for another "
                                                   "assignment is 422 `idempotency_key_reused`.",
                                    "schema": {"type": "string", "maxLength": 200}}],
                    "requestBody": {"content": {"application/json": {"schema": {
                        "type": "object", "properties": {"assignment": {"type": "string"}}}}}},
                    "responses": {"202": {"description": "Queued", "content": {"application/json": {"schema": {
                        "type": "object", "properties": {"id": {"type": "integer"}, "status": {"type": "string"},
                                                         "replayed": {"type": "boolean"}}}}}},
                                  "400": _err("a malformed Idempotency-Key (bad_idempotency_key)"), "401": unauth,
                                  "403": _err("instructors only"),
                                  "404": _err("no such assignment (assignment_not_found)"),
                                  "422": _err("the Idempotency-Key was used for another assignment "
                                              "(idempotency_key_reused)")},
                },
                "get": {
                    "summary": "The latest similarity report (instructors). A pair is a lead, never a penalty.",
                    "parameters": [{"name": "assignment", "in": "query", "schema": {"type": "string"}}],
                    "responses": {"200": {"description": "Report", "content": {"application/json": {"schema": {
                        "type": "object", "properties": {
                            "id": {"type": "integer", "description": "absent when status is none"},
                            "status": {"type": "string", "enum": ["none", "queued", "running", "done", "error"]},
                            "threshold": {"type": "number", "description": "pairs scoring at least this are listed"},
                            "submissions_compared": {"type": "integer", "nullable": True,
                                                     "description": "the latest attempts compared (those not "
                                                                    "left out)"},
                            "left_out": {"type": "object", "nullable": True,
                                         "additionalProperties": {"type": "integer"},
                                         "description": "{reason: count} of the latest attempts not compared: "
                                                        "`empty` (nothing left once the handout's code is "
                                                        "removed, or shorter than one k-gram), `alone` (the only "
                                                        "file with a fingerprint: nothing to compare it with), "
                                                        "`unreadable` (the tokenizer failed on it), `missing` (its "
                                                        "code is not in the store); "
                                                        "null for a report from before round 37, which did not "
                                                        "record them"},
                            "message": {"type": "string", "nullable": True,
                                        "description": "why a report ended in error"},
                            "created_at": {"type": "string", "format": "date-time"},
                            "finished_at": {"type": "string", "format": "date-time", "nullable": True},
                            "pairs": {"type": "array", "items": {"type": "object", "properties": {
                                "a": {"type": "integer", "description": "submission id"},
                                "b": {"type": "integer", "description": "submission id"},
                                "score": {"type": "number", "description": "share of code in common, 0..1"}}}}}}}}},
                        "401": unauth, "403": _err("instructors only"),
                        "404": _err("no such assignment (assignment_not_found)")},
                },
            },
            "/openapi.json": {"get": {"summary": "This description", "security": [],
                                      "responses": {"200": {"description": "OpenAPI 3 document"}}}},
        },
    }
