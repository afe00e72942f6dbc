"""Who may see what. One place for the rules the pages and the API share.

* students see only their own submissions, files and scores; anything else is a 404 (not 403:
  the existence of another student's submission is not disclosed);
* instructor routes answer 403 to students and send anonymous visitors to the sign-in page;
* the API authenticates with `Authorization: Bearer <token>` (only the token's sha256 is stored).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from functools import wraps
from typing import Any

from flask import abort, current_app, g, request
from flask_babel import lazy_gettext as _l
from flask_limiter.util import get_remote_address
from flask_login import current_user
from sqlalchemy import Row, func, select, update
from sqlalchemy.orm import joinedload, selectinload

from app.errors import api_error
from app.extensions import db, login_manager
from app.models import ApiToken, AuditReview, Submission, User, utcnow


def instructor_required(view: Callable) -> Callable:
    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any):
        if not current_user.is_authenticated:
            return login_manager.unauthorized()
        if not current_user.is_instructor:
            abort(403)
        return view(*args, **kwargs)

    return wrapper


def can_see(user: User | None, submission: Submission | Row) -> bool:
    """`submission`: the row or anything with its `student_id`."""
    return user is not None and (user.is_instructor or submission.student_id == user.id)


def load_submission(submission_id: int, user: User | None) -> Submission:
    """The submission with its runs and reviews, or 404 when it does not exist or is not theirs."""
    sub = db.session.scalar(
        select(Submission)
        .where(Submission.id == submission_id)
        .options(
            selectinload(Submission.runs),
            selectinload(Submission.reviews).selectinload(AuditReview.reviewer),
            # Many-to-one: the assignment in the same query; the student is usually the signed-in
            # user, already in the session (a lazy load finds it there without a query).
            joinedload(Submission.assignment),
        )
    )
    if sub is None or not can_see(user, sub):
        abort(404)
    return sub


# --- API tokens ---------------------------------------------------------------------------------

# How stale a token's `last_used_at` may be (the tokens page shows it).
TOKEN_LAST_USED_RESOLUTION = timedelta(minutes=1)


def bearer_token() -> str | None:
    """The token of `Authorization: Bearer <token>` (scheme in any case, spaces ignored), or None."""
    scheme, _, token = request.headers.get("Authorization", "").strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        return None
    return token


def bearer_user() -> User | None:
    """The user of a live token, looked up once per request (the rate-limit key needs it too)."""
    # Cached on the request itself (not `g`, which outlives a request when an app context is
    # already pushed, as in tests).
    cache_key = "autograder.bearer_user"
    if cache_key in request.environ:
        return request.environ[cache_key]
    user = None
    token = bearer_token()
    if token is not None:
        # One query for the token and its user.
        found = db.session.execute(
            select(ApiToken.id, ApiToken.last_used_at, User)
            .join(User, User.id == ApiToken.user_id)
            .where(ApiToken.token_hash == ApiToken.hash(token), ApiToken.revoked.is_(False))
        ).first()
        if found is not None:
            token_id, last_used, user = found
            now = utcnow()
            # "Last used" is kept to the minute: a client polling many times a minute does not
            # write (and commit) the token's row on every request.
            if last_used is None or now - last_used >= TOKEN_LAST_USED_RESOLUTION:
                db.session.execute(update(ApiToken).where(ApiToken.id == token_id).values(last_used_at=now))
                db.session.commit()
    request.environ[cache_key] = user
    return user


def token_required(view: Callable) -> Callable:
    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any):
        user = bearer_user()
        if user is None:
            return api_error(
                "unauthorized", 401,
                _l("Missing or invalid token: send 'Authorization: Bearer <token>'."),
                headers={"WWW-Authenticate": 'Bearer realm="autograder"'},
            )
        g.api_user = user
        return view(*args, **kwargs)

    return wrapper


def rate_key() -> str:
    """Rate limits count per authenticated user, whichever way they authenticate (session or any
    of their tokens, however the header is spelled), else per client address."""
    user = bearer_user() if request.headers.get("Authorization") else None
    if user is None and current_user.is_authenticated:
        user = current_user
    if user is not None:
        return f"user:{user.id}"
    return f"addr:{get_remote_address()}"


def api_limit() -> str:
    return current_app.config["API_RATE_LIMIT"]


def submit_limit() -> str:
    return current_app.config["SUBMIT_RATE_LIMIT"]


class TokenLimitReached(Exception):
    """The user already holds the most live tokens allowed; they must revoke one first."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"at most {limit} live API tokens per user: revoke one first")
        self.limit = limit


def issue_token(user: User) -> str:
    """A new API token for `user` (committed; the secret is returned once), within the cap on
    live tokens, so a user cannot mint an unbounded number of credentials."""
    limit = current_app.config["MAX_LIVE_TOKENS_PER_USER"]
    # Lock the user's row: two concurrent requests cannot both take the last free place.
    db.session.scalar(select(User.id).where(User.id == user.id).with_for_update())
    live = db.session.scalar(
        select(func.count(ApiToken.id)).where(ApiToken.user_id == user.id, ApiToken.revoked.is_(False))
    )
    if live >= limit:
        db.session.rollback()
        raise TokenLimitReached(limit)
    row, secret = ApiToken.issue(user)
    db.session.add(row)
    db.session.commit()
    return secret
