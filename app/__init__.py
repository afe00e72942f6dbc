"""The Flask application factory."""

from __future__ import annotations

from typing import Any

from flask import Flask, request, session

from app import security
from app.config import Config, TestingConfig
from app.extensions import babel, csrf, db, limiter, login_manager, migrate
from app.queue import celery_init_app


def create_app(config: Config | None = None, **overrides: Any) -> Flask:
    """Build the app. Migrations never run here: `autograder db upgrade` does that."""
    app = Flask(__name__)
    app.config.from_object(config or Config())
    app.config.update(overrides)
    register_extensions(app)
    register_blueprints(app)
    register_errorhandlers(app)
    register_template_helpers(app)
    security.register(app)
    celery_init_app(app)
    return app


def create_testing_app(**overrides: Any) -> Flask:
    return create_app(TestingConfig(), **overrides)


def select_locale() -> str:
    chosen = request.args.get("lang") or session.get("lang")
    if chosen in ("zh", "en"):
        return chosen
    return request.accept_languages.best_match(["zh", "en"]) or "zh"


def register_extensions(app: Flask) -> None:
    db.init_app(app)
    migrate.init_app(app, db, directory=str(_migrations_dir()))
    login_manager.init_app(app)
    login_manager.login_view = "auth.login"
    csrf.init_app(app)
    babel.init_app(app, locale_selector=select_locale)
    limiter.init_app(app)

    from app.models import User

    @login_manager.user_loader
    def load_user(user_id: str) -> User | None:
        return db.session.get(User, int(user_id))


def register_blueprints(app: Flask) -> None:
    from app.api import bp as api_bp
    from app.auth import bp as auth_bp
    from app.health import bp as health_bp
    from app.instructor import bp as instructor_bp
    from app.student import bp as student_bp

    app.register_blueprint(auth_bp)
    app.register_blueprint(student_bp)
    app.register_blueprint(instructor_bp, url_prefix="/instructor")
    app.register_blueprint(api_bp, url_prefix="/api/v1")
    app.register_blueprint(health_bp)
    csrf.exempt(api_bp)  # token-authenticated, no cookies: CSRF does not apply


def register_errorhandlers(app: Flask) -> None:
    from app import errors

    errors.register(app)


def register_template_helpers(app: Flask) -> None:
    from app import views_helpers

    views_helpers.register(app)


def _migrations_dir():
    from pathlib import Path

    return Path(__file__).resolve().parent.parent / "migrations"
