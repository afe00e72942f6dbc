"""Placeholder: the student area is being built."""

from flask import Blueprint

bp = Blueprint("student", __name__)


@bp.get("/")
def index():  # noqa: ANN201
    return "student home"
