"""Placeholder: the api area is being built."""

from flask import Blueprint

bp = Blueprint("api", __name__)
