"""Who may see what. One place for the rules the pages and the API share.

* students see only their own submissions, files and scores; anything else is a 404 (not 403:
  the existence of another student's submission is not disclosed);
* instructor routes answer 403 to students and send anonymous visitors to the sign-in page;
* the API authenticates with `Authorization: Bearer <token>` (only the token's sha256 is stored).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import wraps
from typing import Any

from flask import abort, current_app, g, request
from flask_babel import lazy_gettext as _l
from flask_limiter.util import get_remote_address
from flask_login import current_user
from sqlalchemy import select
from sqlalchemy.orm import selectinload

from app.errors import api_error
from app.extensions import db, login_manager
from app.models import ApiToken, AuditReview, Submission, User, utcnow


def instructor_required(view: Callable) -> Callable:
    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any):  # noqa: ANN202
        if not current_user.is_authenticated:
            return login_manager.unauthorized()
        if not current_user.is_instructor:
            abort(403)
        return view(*args, **kwargs)

    return wrapper


def can_see(user: User | None, submission: Submission) -> bool:
    return user is not None and (user.is_instructor or submission.student_id == user.id)


def load_submission(submission_id: int, user: User | None) -> Submission:
    """The submission with its runs and reviews, or 404 when it does not exist or is not theirs."""
    sub = db.session.scalar(
        select(Submission)
        .where(Submission.id == submission_id)
        .options(
            selectinload(Submission.runs),
            selectinload(Submission.reviews).selectinload(AuditReview.reviewer),
            selectinload(Submission.assignment),
            selectinload(Submission.student),
        )
    )
    if sub is None or not can_see(user, sub):
        abort(404)
    return sub


# --- API tokens ---------------------------------------------------------------------------------


def bearer_user() -> User | None:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    row = db.session.scalar(
        select(ApiToken).where(ApiToken.token_hash == ApiToken.hash(token.strip()), ApiToken.revoked.is_(False))
    )
    if row is None:
        return None
    row.last_used_at = utcnow()
    db.session.commit()
    return row.user


def token_required(view: Callable) -> Callable:
    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any):  # noqa: ANN202
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
    """Rate limits count per signed-in user or per API token, else per address."""
    if current_user.is_authenticated:
        return f"user:{current_user.id}"
    header = request.headers.get("Authorization", "")
    if header:
        return "token:" + hashlib.sha256(header.encode()).hexdigest()[:24]
    return get_remote_address()


def submit_limit() -> str:
    return current_app.config["SUBMIT_RATE_LIMIT"]
