"""WSGI entry point for a production server: `gunicorn app.wsgi:app`."""

from app import create_app

app = create_app()
