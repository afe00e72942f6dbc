"""Signing in and out.

* Passwords are hashed (werkzeug). An unknown account costs the same as a known one: its password
  is checked against a dummy hash, and the message is the same, so timing tells nothing.
* Only failed sign-ins count against the limits: per (client address, account), and a higher
  ceiling per address. One student's failures never lock out another account behind the same NAT.
* Signing in starts a fresh session (new CSRF token). Signing out renews the user's session nonce,
  which ends every session and remember-me cookie of the account, copied ones included.
* `next=` is parsed, not string-matched: a local path only.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
import unicodedata
from functools import cache
from urllib.parse import urlsplit, urlunsplit

from flask import (
    Blueprint,
    Response,
    current_app,
    flash,
    g,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_limiter.util import get_remote_address
from flask_login import current_user, login_required, login_user, logout_user
from flask_wtf import FlaskForm
from sqlalchemy import func, select
from werkzeug.security import check_password_hash, generate_password_hash
from wtforms import BooleanField, EmailField, PasswordField
from wtforms.validators import DataRequired, Length, Regexp

from app.extensions import db, limiter
from app.models import User

bp = Blueprint("auth", __name__)

# No control character either (round 29: a NUL in a roster's email failed the whole import as a
# database error, an ESC or DEL was stored and went out in every export).
EMAIL_PATTERN = r"^[^@\s\x00-\x1f\x7f-\x9f]+@[^@\s\x00-\x1f\x7f-\x9f]+\.[^@\s\x00-\x1f\x7f-\x9f]+$"
# C0 and C1 control characters and DEL: browsers drop tabs and newlines inside URLs, so
# "/\t/evil.example" is "//evil.example" to them.
CONTROL_CHARS = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# The control characters that separate words (tab, line breaks, the information separators, NEL): a
# run of them in a name is one space.
_CONTROL_BREAKS = re.compile(r"[\t-\r\x1c-\x1f\x85]+")


# An ideographic full stop is a dot in a domain name (IDNA, RFC 3490 3.1): a Chinese input method
# types it for '.'.
_IDEOGRAPHIC_DOTS = str.maketrans({"\u3002": ".", "\uff61": "."})


def visible(text: str) -> str:
    """`text` without format characters (Unicode Cf: zero-width spaces and joiners, bidi marks and
    overrides, soft hyphens, byte order marks), which pasting from a chat, a web page or Excel adds
    and nobody sees."""
    return "".join(ch for ch in text if unicodedata.category(ch) != "Cf")


def normalize_email(raw: str | None) -> str:
    """An email as typed or pasted, as the address it means: NFKC (a Chinese input method's
    full-width `ａｌｉｃｅ＠ｅｘａｍｐｌｅ．ｅｄｕ`), ideographic full stops as dots, invisible format
    characters removed, surrounding spaces stripped. Case is kept (compared case-insensitively)."""
    text = unicodedata.normalize("NFKC", raw or "").translate(_IDEOGRAPHIC_DOTS)
    return visible(text).strip()


def clean_name(raw: str | None) -> str:
    """A person's name as stored: bidi embeddings, overrides and isolates (U+202A-E, U+2066-9),
    which reorder the text around the name on every page, and other invisible format characters
    are removed; zero-width joiners (U+200C/U+200D: Persian, Indic scripts, emoji sequences) stay.
    A line break or tab (a quoted roster cell, a paste) is a space, and the other control characters
    go: a NUL failed the whole roster import in the database, an ESC sequence or a line break was kept
    and sent into every export and the sign-in links file that is mailed on. The name is composed (NFC):
    "José" or "김민준" written decomposed (NFD, as macOS writes file names and text copied from them) looks
    the same but compared unequal, so a roster re-imported from another computer "updated" every such name
    to itself and logged it (round 34)."""
    keep = {"\u200c", "\u200d"}
    composed = unicodedata.normalize("NFC", raw or "")
    text = "".join(ch for ch in composed if ch in keep or unicodedata.category(ch) != "Cf")
    return CONTROL_CHARS.sub("", _CONTROL_BREAKS.sub(" ", text)).strip()


class LoginForm(FlaskForm):
    # A plain pattern, not wtforms' Email(): that one needs the email_validator package, which is
    # not a dependency (sign-in crashed with a 500 without it).
    email = EmailField("Email", filters=[normalize_email],
                       validators=[DataRequired(), Length(max=254), Regexp(EMAIL_PATTERN)])
    password = PasswordField("Password", validators=[DataRequired(), Length(max=1024)])
    remember = BooleanField("Remember me")


def find_user(email: str) -> User | None:
    key = normalize_email(email).lower()
    return db.session.scalar(select(User).where(func.lower(User.email) == key))


@cache
def _dummy_hash() -> str:
    # Same method and cost as real hashes (werkzeug's default), made once per process.
    return generate_password_hash("not-a-password-of-anyone")


def authenticate(email: str, password: str) -> User | None:
    """The user with this email and password, else None, in the same time either way."""
    user = find_user(email)
    if user is None or not user.password_hash:
        check_password_hash(_dummy_hash(), password)  # pay the hash cost an existing account pays
        return None
    return user if user.check_password(password) else None


def safe_next(raw: str | None) -> str | None:
    """A same-site path to go to after sign-in, or None: no scheme, no host, a path only."""
    if not raw:
        return None
    cleaned = CONTROL_CHARS.sub("", raw).strip()
    # Browsers read a backslash as a slash ("/\\evil.example" is "//evil.example").
    if "\\" in cleaned:
        return None
    try:
        parts = urlsplit(cleaned)
    except ValueError:
        return None
    if parts.scheme or parts.netloc or not parts.path.startswith("/") or parts.path.startswith("//"):
        return None
    return urlunsplit(("", "", parts.path, parts.query, parts.fragment))


def home_for(user: User) -> str:
    return url_for("instructor.dashboard") if user.is_instructor else url_for("student.index")


# --- limits on failed sign-ins ------------------------------------------------------------------


def account_key() -> str:
    """(client address, account) for the per-account failure limit; the email is normalised."""
    email = normalize_email(request.form.get("email")).lower()
    return f"{get_remote_address()}|{hashlib.sha256(email.encode()).hexdigest()[:24]}"


# Session keys: when this session signed in, and whether with "remember me".
SIGNED_IN_AT, REMEMBERED = "signed_in_at", "remembered"
# Set on the request (not `g`, which can outlive one request) when it signed someone in.
SIGNED_IN = "autograder.signed_in"


def sign_in_failed(response: Response) -> bool:
    """Counted after the view: only a request that tried and did not sign anyone in costs one.
    A refusal by the limiter itself (429) costs nothing, so one student hammering their own
    account never fills the per-address ceiling that the rest of the class shares."""
    return response.status_code != 429 and not request.environ.get(SIGNED_IN, False)


def _login_limit() -> str:
    return current_app.config["LOGIN_RATE_LIMIT"]


def _address_limit() -> str:
    return current_app.config["LOGIN_ADDRESS_RATE_LIMIT"]


def start_fresh_session() -> None:
    """A new session at sign-in: nothing from before survives but the language, CSRF included."""
    lang = session.get("lang")
    session.clear()
    g.pop("csrf_token", None)  # Flask-WTF caches the token of this request here
    if lang:
        session["lang"] = lang


def sign_in(user: User, *, remember: bool = False) -> None:
    """Every way of signing in (password, one-time link): a fresh session, so nothing of the one before
    survives (another account's keys, the CSRF token), and the sign-in time end_expired_sessions ages.
    Round 29: the link signed in without either, so the session kept its CSRF token and, with no sign-in
    time, was taken for a remember-me restore and lived REMEMBER_COOKIE_DAYS instead of SESSION_MAX_HOURS."""
    start_fresh_session()
    login_user(user, remember=remember)
    session[SIGNED_IN_AT], session[REMEMBERED] = time.time(), remember
    request.environ[SIGNED_IN] = True


CARRY_KEY = "_carry_key"


@bp.app_template_global("carry_key")
def carry_key() -> str:
    """A random value of this sign-in (new at every sign-in and sign-out, as the session is started afresh),
    which the pages carry for app.js: the files kept in the browser across a language switch go back only
    into a form of the same sign-in, never into the next user's on that browser. Never the email."""
    if not current_user.is_authenticated:
        return ""
    key = session.get(CARRY_KEY)
    if not key:
        key = session[CARRY_KEY] = secrets.token_urlsafe(16)
    return key


@bp.before_app_request
def end_expired_sessions() -> None:
    """Sessions end server-side: SESSION_MAX_HOURS after sign-in, or REMEMBER_COOKIE_DAYS with
    "remember me". The sign-in time travels in the signed session, so a copied cookie ages too."""
    if "_user_id" not in session:
        return
    now = time.time()
    signed_in_at = session.get(SIGNED_IN_AT)
    if signed_in_at is None:
        # Restored from the remember-me cookie: a remembered session from now on.
        session[SIGNED_IN_AT], session[REMEMBERED] = now, True
        return
    cfg = current_app.config
    if session.get(REMEMBERED):
        max_age = cfg["REMEMBER_COOKIE_DAYS"] * 86400
    else:
        max_age = cfg["SESSION_MAX_HOURS"] * 3600
    if now - signed_in_at > max_age:
        logout_user()  # also clears the remember-me cookie
        start_fresh_session()


SESSION_ENDED = _l("Your session ended before this form was sent (signed out in another tab, or signed in too "
                   "long ago), so nothing was saved. Sign in, then send it again.")


def signed_out():
    """Flask-Login's answer to a request that needs a signed-in user (`login_manager.unauthorized`).

    Its default flashed "Please log in to access this page." in English on the Chinese sign-in page,
    and sent `next=` the URL asked for: after a form was posted with an ended session (signed out
    in another tab, or past SESSION_MAX_HOURS) that was the form's POST-only action, so signing
    in ended on a 405 page. The page's background upload followed the redirect to the sign-in page
    and showed its status, "200", as the error. Now: a GET goes to the sign-in page and back; a
    form goes back to the page it was sent from (its Referer on this site), saying nothing was
    saved; the background upload (and a JSON client) gets that message as a 401 it can show."""
    from app.errors import both, error_response, wants_json

    if request.method in ("GET", "HEAD"):
        flash(_("Please sign in to see this page."), "info")
        return redirect(url_for("auth.login", next=request.full_path.rstrip("?")))
    if request.headers.get("X-Upload") == "fetch" or wants_json():
        text = both(SESSION_ENDED)
        return error_response(401, code="signed_out", en=text["en"], zh=text["zh"])
    flash(str(SESSION_ENDED), "error")
    referrer = urlsplit(request.referrer or "")
    back = (urlunsplit(("", "", referrer.path, referrer.query, ""))
            if referrer.netloc == request.host else None)
    return redirect(url_for("auth.login", next=safe_next(back)) if safe_next(back) else url_for("auth.login"))


@bp.route("/login", methods=["GET", "POST"])
@limiter.limit(_login_limit, methods=["POST"], key_func=account_key, deduct_when=sign_in_failed)
@limiter.limit(_address_limit, methods=["POST"], key_func=get_remote_address, deduct_when=sign_in_failed)
def login():
    if current_user.is_authenticated:
        request.environ[SIGNED_IN] = True  # already signed in: not a failure
        return redirect(home_for(current_user))
    form = LoginForm()
    if form.validate_on_submit():
        user = authenticate(form.email.data, form.password.data)
        if user is not None:
            sign_in(user, remember=bool(form.remember.data))
            return redirect(safe_next(request.args.get("next")) or home_for(user))
        flash(_("Wrong email or password."), "error")
    return render_template("auth/login.html", form=form)


@bp.post("/logout")
@login_required
def logout():
    # Renewing the nonce invalidates every copy of this session and every remember-me cookie of
    # the account, on all devices ("sign out everywhere"): cookies are client-side, so a
    # per-user nonce is what the server can revoke.
    current_user.end_all_sessions()
    db.session.commit()
    logout_user()
    start_fresh_session()
    return redirect(url_for("auth.login"))


@bp.get("/lang/<code>")
def set_language(code: str):
    if code in ("zh", "en"):
        session["lang"] = code
    # Back to the page the visitor came from, as a local path only (never another site).
    referrer = urlsplit(request.referrer or "")
    back = urlunsplit(("", "", referrer.path, referrer.query, ""))
    return redirect(safe_next(back) or url_for("auth.login"))
