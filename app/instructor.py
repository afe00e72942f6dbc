"""Placeholder: the instructor area is being built."""

from flask import Blueprint

bp = Blueprint("instructor", __name__)


@bp.get("/")
def dashboard():  # noqa: ANN201
    return "dashboard"
