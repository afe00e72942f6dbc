"""Signing in and out. Passwords are hashed (werkzeug); sign-in is rate limited."""

from __future__ import annotations

from flask import Blueprint, current_app, flash, redirect, render_template, request, session, url_for
from flask_babel import gettext as _
from flask_login import current_user, login_required, login_user, logout_user
from flask_wtf import FlaskForm
from sqlalchemy import func, select
from wtforms import BooleanField, EmailField, PasswordField
from wtforms.validators import DataRequired, Length, Regexp

from app.extensions import db, limiter
from app.models import User

bp = Blueprint("auth", __name__)

EMAIL_PATTERN = r"^[^@\s]+@[^@\s]+\.[^@\s]+$"


class LoginForm(FlaskForm):
    # A plain pattern, not wtforms' Email(): that one needs the email_validator package, which is
    # not a dependency (sign-in crashed with a 500 without it).
    email = EmailField("Email", validators=[DataRequired(), Length(max=254), Regexp(EMAIL_PATTERN)])
    password = PasswordField("Password", validators=[DataRequired()])
    remember = BooleanField("Remember me")


def find_user(email: str) -> User | None:
    return db.session.scalar(select(User).where(func.lower(User.email) == email.strip().lower()))


def home_for(user: User) -> str:
    return url_for("instructor.dashboard") if user.is_instructor else url_for("student.index")


@bp.route("/login", methods=["GET", "POST"])
@limiter.limit(lambda: current_app.config["LOGIN_RATE_LIMIT"], methods=["POST"])
def login():  # noqa: ANN201
    if current_user.is_authenticated:
        return redirect(home_for(current_user))
    form = LoginForm()
    if form.validate_on_submit():
        user = find_user(form.email.data)
        if user is not None and user.check_password(form.password.data):
            login_user(user, remember=form.remember.data)
            nxt = request.args.get("next")
            # Only same-site relative paths: no open redirect.
            if nxt and nxt.startswith("/") and not nxt.startswith("//"):
                return redirect(nxt)
            return redirect(home_for(user))
        flash(_("Wrong email or password."), "error")
    return render_template("auth/login.html", form=form)


@bp.post("/logout")
@login_required
def logout():  # noqa: ANN201
    logout_user()
    return redirect(url_for("auth.login"))


@bp.get("/lang/<code>")
def set_language(code: str):  # noqa: ANN201
    if code in ("zh", "en"):
        session["lang"] = code
    target = request.referrer or url_for("auth.login")
    return redirect(target if target.startswith(request.host_url) or target.startswith("/") else "/")
