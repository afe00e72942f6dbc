"""OpenAPI 3 description of the JSON API (hand-written; served at /api/v1/openapi.json)."""

from __future__ import annotations

from typing import Any


def _err(desc: str) -> dict:
    return {"description": desc, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}


def spec() -> dict[str, Any]:
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
                    },
                },
                "Queued": {
                    "type": "object",
                    "properties": {"id": {"type": "integer"}, "status": {"type": "string", "enum": ["queued"]},
                                   "attempt": {"type": "integer"}, "queue_position": {"type": "integer"},
                                   "url": {"type": "string"},
                                   "carried_forward": {
                                       "type": "object",
                                       "description": "attempt numbers whose audit / figure this attempt kept "
                                                      "(null when uploaded now or absent)",
                                       "properties": {"audit": {"type": "integer", "nullable": True},
                                                      "figure": {"type": "integer", "nullable": True}}},
                                   "warnings": {"type": "array", "items": {"type": "object"},
                                                "description": "`no_audit` when the attempt has no audit"}},
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
                        "queue_position": {"type": "integer", "nullable": True,
                                           "description": "queued runs ahead of this one (0 = next)"},
                        "grader_version": {"type": "string", "nullable": True},
                        "result": {"type": "object", "nullable": True,
                                   "description": "The grade JSON (docs/contracts.md §2); for students "
                                   "without 'log' and with hidden tests' feedback set to null."},
                        "score": {"type": "object", "nullable": True,
                                  "description": "total after the audit review and the late penalty"},
                        "audit_review": {"type": "object", "nullable": True},
                    },
                },
            },
        },
        "security": auth,
        "paths": {
            "/submissions": {
                "post": {
                    "summary": "Submit an attempt",
                    "description": "Send the files as `multipart/form-data`. A code-only resubmission "
                                   "keeps the previous attempt's audit and figure (see `carried_forward`).",
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
                        }}}}},
                    "responses": {
                        "202": {"description": "Queued", "content": {"application/json": {
                            "schema": {"$ref": "#/components/schemas/Queued"}}}},
                        "400": _err("code missing"), "401": unauth, "403": _err("deadline passed"),
                        "413": _err("file too large"), "415": _err("wrong file type"),
                        "422": _err("file rejected (encoding, empty, damaged)"),
                        "429": _err("cooldown, too many pending attempts or rate limit"),
                    },
                },
                "get": {
                    "summary": "List my submissions",
                    "responses": {"200": {"description": "Own submissions"}, "401": unauth},
                },
            },
            "/submissions/{id}": {
                "get": {
                    "summary": "Status and result of one submission",
                    "description": "With `?wait=S` the answer waits until grading ends (or S seconds, at "
                                   "most 20) instead of polling: `GET /api/v1/submissions/7?wait=20`.",
                    "parameters": [
                        {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}},
                        {"name": "wait", "in": "query", "required": False,
                         "description": "Long-poll: answer as soon as grading ends, or after this many "
                                        "seconds (at most 20)",
                         "schema": {"type": "number", "minimum": 0, "maximum": 20}},
                    ],
                    "responses": {
                        "200": {"description": "The submission", "content": {"application/json": {
                            "schema": {"$ref": "#/components/schemas/Submission"}}}},
                        "401": unauth, "404": _err("not found (or not yours)"),
                    },
                },
            },
            "/submissions/{id}/regrade": {
                "post": {
                    "summary": "Queue a regrade (instructors)",
                    "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}],
                    "responses": {"202": {"description": "Queued"}, "401": unauth,
                                  "403": _err("instructors only"), "404": _err("not found")},
                },
            },
            "/gradebook": {
                "get": {
                    "summary": "Gradebook (instructors): best attempt after late penalty and audit review",
                    "parameters": [
                        {"name": "format", "in": "query", "schema": {"type": "string", "enum": ["json", "csv"]}},
                        {"name": "assignment", "in": "query", "schema": {"type": "string"}},
                    ],
                    "responses": {"200": {"description": "JSON, or CSV (UTF-8 with BOM)"}, "401": unauth,
                                  "403": _err("instructors only")},
                },
            },
            "/openapi.json": {"get": {"summary": "This description", "security": [],
                                      "responses": {"200": {"description": "OpenAPI 3 document"}}}},
        },
    }
