"""The Flask application factory."""

from __future__ import annotations

import hmac
import logging
from typing import Any

from flask import Flask, request, session
from flask.logging import default_handler
from werkzeug.middleware.proxy_fix import ProxyFix

from app import security
from app.config import Config, TestingConfig
from app.extensions import babel, csrf, db, limiter, login_manager, migrate
from app.queue import celery_init_app


def create_app(config: Config | None = None, **overrides: Any) -> Flask:
    """Build the app. Migrations never run here: `autograder db upgrade` does that."""
    app = Flask(__name__)
    from app.api_input import AppRequest

    app.request_class = AppRequest   # keeps why a multipart body yielded no form (app.api_input)
    # Before any blueprint: every `<int:...>` in a route then stops at the largest id (app/ids.py).
    from app.ids import IdConverter

    app.url_map.converters["int"] = IdConverter
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
    # The reader's most wanted language whose primary subtag we have: `zh-Hant-TW, en;q=0.5` is zh.
    # Werkzeug's best_match tries exact tags first and falls back to primary subtags only when
    # nothing matched, so the `en;q=0.5` the reader liked less won. Sorted by quality; q=0 is "not this".
    for tag, quality in request.accept_languages:
        primary = tag.split("-", 1)[0].split("_", 1)[0].lower()
        if quality > 0 and primary in ("zh", "en"):
            return primary
    return "zh"


def register_extensions(app: Flask) -> None:
    db.init_app(app)
    migrate.init_app(app, db, directory=str(_migrations_dir()))
    login_manager.init_app(app)
    login_manager.login_view = "auth.login"
    from app.auth import signed_out

    login_manager.unauthorized_handler(signed_out)
    csrf.init_app(app)
    babel.init_app(app, locale_selector=select_locale)
    limiter.init_app(app)

    # Flask-Limiter logs to a silent logger of its own: show its warnings (Redis unreachable,
    # falling back to memory; recovered) where the app's own log lines go.
    limiter_log = logging.getLogger("flask-limiter")
    limiter_log.setLevel(logging.INFO)
    if default_handler not in limiter_log.handlers:
        limiter_log.addHandler(default_handler)

    if app.config["PROXY_COUNT"] > 0:
        # Trust exactly as many X-Forwarded-* hops as there are proxies we run: the client address
        # the limiter and the logs see is then the real one, and a client cannot forge it.
        n = app.config["PROXY_COUNT"]
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=n, x_proto=n, x_host=0, x_port=0, x_prefix=0)

    from app.models import User

    @login_manager.user_loader
    def load_user(user_id: str) -> User | None:
        # "id.nonce" (User.get_id): a cookie whose nonce was renewed at sign-out is refused.
        uid, dot, nonce = user_id.partition(".")
        if not dot or not uid.isdigit():
            return None
        user = db.session.get(User, int(uid))
        if user is None or not hmac.compare_digest(user.session_nonce.encode(), nonce.encode()):
            return None
        return user


def register_blueprints(app: Flask) -> None:
    from app.api import bp as api_bp
    from app.auth import bp as auth_bp
    from app.health import bp as health_bp
    from app.instructor import bp as instructor_bp
    from app.roster import signin_bp
    from app.student import bp as student_bp

    app.register_blueprint(auth_bp)
    app.register_blueprint(student_bp)
    app.register_blueprint(instructor_bp, url_prefix="/instructor")
    app.register_blueprint(api_bp, url_prefix="/api/v1")
    app.register_blueprint(health_bp)
    app.register_blueprint(signin_bp)
    from app.metrics import bp as metrics_bp

    app.register_blueprint(metrics_bp)
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
