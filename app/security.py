"""HTTP security headers on every response (pages, API, files)."""

from __future__ import annotations

from flask import Flask, Response, request


def security_headers(resp: Response) -> Response:
    # Pages and API answers hold one person's grades, feedback, code or a new token: no cache keeps
    # them (a shared lab computer's back button after sign-out, a proxy). Static files are public.
    if request.endpoint != "static" and "Cache-Control" not in resp.headers:
        resp.headers["Cache-Control"] = "no-store"
    # Student text is escaped and sanitised; the policy is a second line of defence: no inline
    # script, nothing loaded from elsewhere (the app works offline).
    resp.headers.setdefault(
        "Content-Security-Policy",
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
        "object-src 'none'; base-uri 'self'; frame-ancestors 'none'; form-action 'self'",
    )
    resp.headers.setdefault("X-Content-Type-Options", "nosniff")
    resp.headers.setdefault("Referrer-Policy", "same-origin")
    return resp


def register(app: Flask) -> None:
    app.after_request(security_headers)
